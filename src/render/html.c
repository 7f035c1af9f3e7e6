/*
 * html.c - the frame of gpuscope's HTML pages (html.h): escaping, the
 * inline style sheet, the patterns every chart and legend fills with (a
 * colour and a texture each, so that a printout in grey or a reader who
 * cannot tell the colours apart still tells the series apart), and the
 * inline script that lets the time charts zoom. The page needs none of
 * the script: without it every chart shows the whole span.
 */
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "render/html.h"
#include "util/i18n.h"
#include "util/version.h"

void html_esc(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '&':
			fputs("&amp;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&#39;", f);
			break;
		default:
			fputc(*s, f);
		}
	}
}

void html_escf(FILE *f, const char *fmt, ...)
{
	char buf[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	html_esc(f, buf);
}

/* The series kinds: fill colour (Okabe-Ito, readable by the colour blind),
 * ink of the texture and the texture. */
enum tex { T_SOLID, T_SLASH, T_BACKSLASH, T_DOTS, T_HORIZ, T_VERT, T_CROSS };
static const struct pat {
	const char *kind, *fill, *ink;
	enum tex tex;
} pats[] = {
    {"kernel", "#0072B2", NULL, T_SOLID},
    {"copy", "#E69F00", "#6b4a00", T_SLASH},
    {"memset", "#CC79A7", "#5e2a4c", T_DOTS},
    {"busy", "#6fa8d6", NULL, T_SOLID},
    {"idle", "#d9d9d9", NULL, T_SOLID},
    {"sync", "#009E73", "#00452f", T_CROSS},
    {"idle-host", "#a6a6a6", "#4d4d4d", T_HORIZ},
    {"idle-dispatch", "#F0E442", "#6e6700", T_DOTS},
    {"idle-launch", "#D55E00", "#5c2800", T_SLASH},
    {"idle-sync", "#009E73", "#00452f", T_CROSS},
    {"idle-copy", "#E69F00", "#6b4a00", T_BACKSLASH},
    {"idle-api", "#56B4E9", "#1d4f6e", T_VERT},
    {"base", "#9a9a9a", "#444444", T_SLASH},
    {"new", "#0072B2", NULL, T_SOLID},
};

const char *const html_cause_kind[6] = {"idle-host", "idle-dispatch", "idle-launch",
					"idle-sync", "idle-copy",     "idle-api"};
const char *const html_cause_label[6] = {
    "host work outside CUDA", "host dispatch between CUDA calls",
    "launch latency / queue", "waiting on a synchronization",
    "waiting on a copy call", "inside other CUDA calls (alloc...)"};

static void pattern(FILE *f, const struct pat *p, const char *zoom, double sx)
{
	static const char *const tex[] = {
	    [T_SLASH] = "M0 6L6 0M-1 1L1 -1M5 7L7 5",
	    [T_BACKSLASH] = "M0 0L6 6M-1 5L1 7M5 -1L7 1",
	    [T_DOTS] = "M1.5 1.5h1.2v1.2h-1.2zM4.5 4.5h1.2v1.2h-1.2z",
	    [T_HORIZ] = "M0 1.5H6M0 4.5H6",
	    [T_VERT] = "M1.5 0V6M4.5 0V6",
	    [T_CROSS] = "M0 6L6 0M0 0L6 6",
	};
	fprintf(f,
		"<pattern id=\"%s%sp-%s\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\"",
		zoom ? zoom : "", zoom ? "-" : "", p->kind);
	if (zoom)
		fprintf(f, " data-zoom=\"%s\" patternTransform=\"scale(%.6g,1)\"", zoom, sx);
	fprintf(f, "><rect width=\"6\" height=\"6\" fill=\"%s\"/>", p->fill);
	if (p->tex != T_SOLID)
		fprintf(f, "<path d=\"%s\" stroke=\"%s\" stroke-width=\"1\" fill=\"%s\"/>",
			tex[p->tex], p->ink, p->tex == T_DOTS ? p->ink : "none");
	fputs("</pattern>", f);
}

const char *html_fill(char *buf, size_t n, const char *kind, const char *zoom)
{
	snprintf(buf, n, "url(#%s%sp-%s)", zoom ? zoom : "", zoom ? "-" : "", kind);
	return buf;
}

void html_key(FILE *f, const char *kind, const char *label)
{
	char fill[96];
	fprintf(
	    f,
	    "<span class=\"key\"><svg width=\"14\" height=\"14\" aria-hidden=\"true\"><rect "
	    "width=\"14\" height=\"14\" fill=\"%s\" stroke=\"#555\" stroke-width=\".5\"/></svg> ",
	    html_fill(fill, sizeof(fill), kind, NULL));
	html_esc(f, label);
	fputs("</span>", f);
}

double html_nice(double x)
{
	if (!(x > 0))
		return 1;
	double p = pow(10, floor(log10(x))), m = x / p;
	return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

const char *html_bytes(char *buf, size_t n, double b)
{
	static const char *const u[] = {"B", "KiB", "MiB", "GiB", "TiB"};
	int i = 0;
	double a = fabs(b);
	while (i < 4 && a >= 1024) {
		a /= 1024;
		b /= 1024;
		i++;
	}
	if (i)
		snprintf(buf, n, "%.*f %s", a >= 100 ? 0 : a >= 10 ? 1 : 2, b, u[i]);
	else
		snprintf(buf, n, "%.0f %s", b, u[i]);
	return buf;
}

static const char css[] =
    ":root{--fg:#1b1b1b;--mut:#555;--line:#d5d5d5;--soft:#f4f6f8}"
    "body{font:15px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif;"
    "color:var(--fg);background:#fff;margin:0}"
    "main{max-width:1120px;margin:0 auto;padding:12px 18px 40px}"
    "h1{font-size:21px;margin:.3em 0 .1em}h2{font-size:17px;margin:1.6em 0 .5em;"
    "padding-bottom:.2em;border-bottom:1px solid var(--line)}h3{font-size:15px;margin:1em 0 .3em}"
    "p{margin:.35em 0}.meta,.note{color:var(--mut)}.note{font-size:13px}"
    "nav{font-size:13px;margin:.6em 0;display:flex;flex-wrap:wrap;gap:2px 14px}"
    ".meta,.cols h3{overflow-wrap:anywhere}"
    ".verdict{border:2px solid #9b1c1c;border-radius:8px;padding:10px 16px;background:#fff6f5;"
    "margin:12px 0}.verdict.none{border-color:#2d6a2d;background:#f4fbf3}"
    ".verdict h2{margin-top:.3em}.verdict .what{font-size:19px;font-weight:600;margin:.1em 0}"
    ".sev{display:inline-block;font-size:11.5px;font-weight:700;letter-spacing:.06em;"
    "padding:1px 6px;border:1.5px solid;border-radius:4px;margin-right:6px;vertical-align:2px}"
    ".sev-critical{color:#8a1010;background:#fde8e8}.sev-warning{color:#7a4a00;"
    "background:#fff3d6}.sev-info{color:#1f4466;background:#e8f1fa}"
    ".warn{border-left:5px solid #b36b00;background:#fff8e6;padding:6px 12px;margin:8px 0}"
    ".card{border:1px solid var(--line);border-radius:8px;padding:8px 14px;margin:10px 0}"
    ".card h3{margin:.2em 0}.card ol{margin:.3em 0 .2em 1.2em;padding:0}"
    ".impact{display:inline-block;width:120px;height:9px;background:#eee;border:1px solid #bbb;"
    "vertical-align:middle;margin:0 6px}.impact i{display:block;height:100%;background:#9b1c1c}"
    ".tw{overflow-x:auto;margin:.3em 0}table{border-collapse:collapse;font-size:13px}"
    "th,td{padding:3px 8px;border-bottom:1px solid #e6e6e6;text-align:right;vertical-align:top}"
    "th{background:var(--soft);font-weight:600;white-space:nowrap}td{white-space:nowrap}"
    ".l{text-align:left}td.name{white-space:normal;min-width:14em;max-width:26em}"
    ".full{color:var(--mut);font-size:11.5px;word-break:break-all}.full summary{font-size:11.5px}"
    "table.ev td{white-space:normal;word-break:break-word}table.ev td:first-child{color:var(--mut);"
    "white-space:nowrap;word-break:normal}"
    ".bar{display:inline-block;height:9px;background:#0072B2;vertical-align:middle;"
    "margin-left:4px;min-width:1px}"
    ".chart{margin:8px 0 4px;overflow-x:auto}.chart h3{font-size:13.5px;margin:.8em 0 .1em}"
    ".chart>svg{display:block;width:100%;min-width:660px;height:auto}"
    ".chart>svg.small{min-width:0;max-width:560px}"
    ".keys{font-size:12.5px;display:flex;flex-wrap:wrap;gap:3px 14px;margin:2px 0 6px}"
    ".key svg{vertical-align:-2px}svg text{font-family:system-ui,sans-serif;font-size:11px;"
    "fill:#1b1b1b}svg .mut{fill:#555}svg .ax line{stroke:#888}svg .ax line.g,svg "
    "line.g{stroke:#e6e6e6}"
    ".zbar{font-size:12.5px;margin:4px 0}.zbar button{font:inherit;margin-right:4px;"
    "padding:1px 8px}.cols{display:grid;grid-template-columns:1fr 1fr;gap:18px}"
    ".cols>div{min-width:0}.chart>svg.narrow,.cols .chart>svg{min-width:420px}"
    "details summary{cursor:pointer;color:var(--mut);font-size:13px}"
    "code,.mono{font-family:ui-monospace,'DejaVu Sans Mono',monospace;font-size:12.5px}"
    "@media (max-width:700px){main{padding:8px}.cols{grid-template-columns:1fr}"
    "}"
    "@media print{.zbar{display:none}main{max-width:none;padding:0}body{font-size:11.5px}"
    ".chart>svg,.cols .chart>svg{min-width:0}.chart,.card,table,.verdict{break-inside:avoid}"
    "a{color:inherit;text-decoration:none}}";

void html_page_begin(FILE *f, const char *title)
{
	/* the model's headings and sentences follow the reader's language */
	fputs(i18n_zh() ? "<!DOCTYPE html>\n<html lang=\"zh-CN\">"
			: "<!DOCTYPE html>\n<html lang=\"en\">",
	      f);
	fputs("<head><meta charset=\"utf-8\">"
	      "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
	      "<meta name=\"generator\" content=\"gpuscope " GPUSCOPE_VERSION "\"><title>",
	      f);
	html_esc(f, title);
	fprintf(f,
		"</title><style>%s</style></head>\n<body><svg width=\"0\" height=\"0\" "
		"style=\"position:absolute\" aria-hidden=\"true\"><defs>",
		css);
	for (size_t i = 0; i < sizeof(pats) / sizeof(pats[0]); i++)
		pattern(f, &pats[i], NULL, 1);
	fputs("</defs></svg>\n<main>\n", f);
}

/* Zooms every time chart of a group together: buttons, dragging across a
 * chart, double click to reset; the axis ticks are redrawn. Plain ES5, no
 * library; the page is complete without it. */
static const char script[] =
    "(function(){var NS='http://www.w3.org/2000/svg',G={};"
    "function q(s,e){return Array.prototype.slice.call((e||document).querySelectorAll(s));}"
    "function fmt(ns){var a=Math.abs(ns),u=[[1e9,'s'],[1e6,'ms'],[1e3,'us'],[1,'ns']];"
    "for(var i=0;i<3&&a<u[i][0];i++);var v=ns/u[i][0];"
    "return (Math.round(v*1000)/1000)+' '+u[i][1];}"
    "function nice(x){var p=Math.pow(10,Math.floor(Math.log(x)/Math.LN10)),m=x/p;"
    "return (m<=1?1:m<=2?2:m<=5?5:10)*p;}"
    "function el(n,a,p){var e=document.createElementNS(NS,n);for(var k in a)"
    "e.setAttribute(k,a[k]);p.appendChild(e);return e;}"
    "function geo(v){return {W:v.viewBox.baseVal.width,L:+v.getAttribute('data-l'),"
    "P:+v.getAttribute('data-p')};}"
    "function draw(g){g.svgs.forEach(function(v){var G_=geo(v),L=G_.L,P=G_.P,s=P/(g.b-g.a);"
    "q('.zx',v).forEach(function(x){x.setAttribute('transform','translate('+(L-g.a*s)+"
    "',0) scale('+s+',1)');});q('pattern[data-zoom]',v).forEach(function(p){"
    "p.setAttribute('patternTransform','scale('+(1/s)+',1)');});"
    "q('.ax',v).forEach(function(ax){while(ax.firstChild)ax.removeChild(ax.firstChild);"
    "var y=+ax.getAttribute('data-y'),h=+ax.getAttribute('data-h'),t0=g.a*g.bin,"
    "t1=g.b*g.bin,st=nice((t1-t0)/8);for(var t=Math.ceil(t0/st)*st;t<=t1+1e-9;t+=st){"
    "var x=L+(t/g.bin-g.a)*s;el('line',{x1:x,x2:x,y1:y-h,y2:y,'class':'g'},ax);"
    "el('line',{x1:x,x2:x,y1:y,y2:y+4},ax);el('text',{x:x,y:y+15,'text-anchor':'middle'},"
    "ax).textContent=fmt(t);}});});g.lab.textContent='showing '+fmt(g.a*g.bin)+' to '+"
    "fmt(g.b*g.bin)+' of '+fmt(g.n*g.bin)+'; drag across a chart to zoom, double-click to "
    "reset';}"
    "function set(g,a,b){var m=Math.max(2,g.n/2000*4);if(b-a<m){var c=(a+b)/2;a=c-m/2;"
    "b=c+m/2;}if(a<0){b-=a;a=0;}if(b>g.n){a-=b-g.n;b=g.n;}g.a=Math.max(0,a);"
    "g.b=Math.min(g.n,b);draw(g);}"
    "function bin(g,v,e){var G_=geo(v),r=v.getBoundingClientRect(),"
    "x=(e.clientX-r.left)/r.width*G_.W;return g.a+(x-G_.L)/G_.P*(g.b-g.a);}"
    "q('svg[data-zoom]').forEach(function(v){var z=v.getAttribute('data-zoom');"
    "var g=G[z]||(G[z]={svgs:[],n:+v.getAttribute('data-n'),bin:+v.getAttribute('data-bin')"
    ",a:0,b:0});g.b=g.n;g.svgs.push(v);});"
    "Object.keys(G).forEach(function(z){var g=G[z],c=g.svgs[0].parentNode,d="
    "document.createElement('div');d.className='zbar';[['zoom in',0.5],['zoom out',2],"
    "['whole span',0]].forEach(function(b){var e=document.createElement('button');"
    "e.type='button';e.textContent=b[0];e.onclick=function(){if(!b[1])set(g,0,g.n);else{"
    "var m=(g.a+g.b)/2,w=(g.b-g.a)*b[1]/2;set(g,m-w,m+w);}};d.appendChild(e);});"
    "g.lab=document.createElement('span');d.appendChild(g.lab);"
    "c.parentNode.insertBefore(d,c);g.svgs.forEach(function(v){var s0=null,r=null;"
    "v.addEventListener('mousedown',function(e){s0=bin(g,v,e);r=el('rect',{y:0,height:"
    "v.viewBox.baseVal.height,fill:'#0072B2','fill-opacity':.15,x:0,width:0},v);"
    "e.preventDefault();});v.addEventListener('mousemove',function(e){if(s0===null)return;"
    "var G_=geo(v),b=bin(g,v,e),s=G_.P/(g.b-g.a),x0=G_.L+(Math.min(s0,b)-g.a)*s;"
    "r.setAttribute('x',x0);"
    "r.setAttribute('width',Math.abs(b-s0)*s);});"
    "window.addEventListener('mouseup',function(e){if(s0===null)return;var b=bin(g,v,e),"
    "a=Math.min(s0,b),c=Math.max(s0,b);v.removeChild(r);s0=null;if((c-a)/(g.b-g.a)*"
    "geo(v).P>4)"
    "set(g,a,c);});v.addEventListener('dblclick',function(){set(g,0,g.n);});});draw(g);});"
    "})();";

int html_span_of(const struct report *r, struct html_span *sp, int narrow)
{
	const struct rm_section *s = report_section(r, "timeline");
	const struct rm_field *t0 = s ? rm_section_field(s, "start_ns") : NULL;
	const struct rm_field *bin = s ? rm_section_field(s, "bin_ns") : NULL;
	const struct rm_field *n = s ? rm_section_field(s, "bins") : NULL;
	memset(sp, 0, sizeof(*sp));
	if (!t0 || !bin || !n || n->c.v.i <= 0 || bin->c.v.i <= 0)
		return 0;
	sp->t0 = t0->c.v.i;
	sp->bin_ns = bin->c.v.i;
	sp->n_bins = (int)n->c.v.i;
	sp->w = narrow ? HTML_NW : HTML_W;
	sp->l = narrow ? HTML_NL : HTML_L;
	sp->p = narrow ? HTML_NP : HTML_P;
	return 1;
}

/* A tick label as the script writes it: at most 3 decimals, trailing zeros
 * dropped. */
static void tick_label(char *buf, size_t n, double ns)
{
	static const struct {
		double scale;
		const char *unit;
	} u[] = {{1e9, "s"}, {1e6, "ms"}, {1e3, "us"}, {1, "ns"}};
	size_t i = 0;
	while (i < 3 && fabs(ns) < u[i].scale)
		i++;
	snprintf(buf, n, "%.4g %s", round(ns / u[i].scale * 1000) / 1000, u[i].unit);
}

void html_time_axis(FILE *f, const struct html_span *sp, double y, double h)
{
	double span = (double)sp->n_bins * (double)sp->bin_ns, st = html_nice(span / 8);
	double s = sp->p / sp->n_bins;
	fprintf(f, "<g class=\"ax\" data-y=\"%.1f\" data-h=\"%.1f\">", y, h);
	for (double t = 0; t <= span + 1e-9; t += st) {
		char lab[32];
		double x = sp->l + t / (double)sp->bin_ns * s;
		tick_label(lab, sizeof(lab), t);
		fprintf(f,
			"<line class=\"g\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>"
			"<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/><text x=\"%.1f\" "
			"y=\"%.1f\" text-anchor=\"middle\">%s</text>",
			x, x, y - h, y, x, x, y, y + 4, x, y + 15, lab);
	}
	fputs("</g>", f);
}

void html_time_svg(FILE *f, const struct html_span *sp, const char *zoom, const char *chart,
		   const char *label, double h, int patterns)
{
	fprintf(f,
		"<svg viewBox=\"0 0 %.0f %.0f\" role=\"img\" data-zoom=\"%s\" data-n=\"%d\" "
		"data-bin=\"%lld\" data-l=\"%.0f\" data-p=\"%.0f\"%s aria-label=\"",
		sp->w, h, zoom, sp->n_bins, (long long)sp->bin_ns, sp->l, sp->p,
		sp->w < HTML_W ? " class=\"narrow\"" : "");
	html_esc(f, label);
	fprintf(f,
		"\"><defs><clipPath id=\"%s-clip-%s\"><rect x=\"%.0f\" y=\"0\" width=\"%.0f\" "
		"height=\"%.0f\"/></clipPath>",
		zoom, chart, sp->l, sp->p, h);
	for (size_t i = 0; patterns && i < sizeof(pats) / sizeof(pats[0]); i++)
		pattern(f, &pats[i], zoom, sp->n_bins / sp->p);
	fputs("</defs>", f);
}

void html_zoom_g(FILE *f, const struct html_span *sp, const char *zoom, const char *chart)
{
	fprintf(f,
		"<g clip-path=\"url(#%s-clip-%s)\"><g class=\"zx\" transform=\"translate(%.0f,0) "
		"scale(%.6g,1)\">",
		zoom, chart, sp->l, sp->p / sp->n_bins);
}

void html_page_end(FILE *f)
{
	fputs("<footer class=\"note\"><p>made by gpuscope " GPUSCOPE_VERSION
	      " (one self-contained page: nothing is loaded when it is viewed; the charts "
	      "zoom with JavaScript and are complete without it)</p></footer>\n</main>\n<script>",
	      f);
	fputs(script, f);
	fputs("</script>\n</body></html>\n", f);
}
