/*
 * findings.c - findings as text blocks and as the JSON array of docs/findings.md's
 * shape (render/findings_render.h), for report, diff and doctor alike.
 */
#include <stdio.h>
#include <string.h>

#include "render/findings_render.h"
#include "util/i18n.h"
#include "util/wrap.h"

void finding_list_json(struct json_out *j, const struct finding_list *l)
{
	json_begin_array(j);
	for (size_t i = 0; i < l->n; i++) {
		const struct finding *f = &l->v[i];
		json_begin_object(j);
		json_kv_string(j, "id", f->id);
		json_kv_string(j, "severity", severity_name(f->severity));
		char t[sizeof(f->title)];
		json_kv_string(j, "title", finding_title(t, sizeof(t), f));
		json_kv_double(j, "impact_pct", f->impact_pct);
		if (f->device >= 0) /* a run of several devices */
			json_kv_int(j, "device", f->device);
		json_key(j, "evidence");
		json_begin_object(j);
		for (int e = 0; e < f->n_ev; e++) {
			json_key(j, f->ev[e].key);
			if (f->ev[e].is_num && f->ev[e].unknown)
				json_null(j);
			else if (f->ev[e].is_num)
				json_double(j, f->ev[e].num);
			else
				json_string(j, f->ev[e].str);
		}
		json_end_object(j);
		json_key(j, "actions");
		json_begin_array(j);
		for (int a = 0; a < f->n_actions; a++)
			json_string(j, finding_action_text(t, sizeof(t), f, a));
		json_end_array(j);
		json_end_object(j);
	}
	json_end_array(j);
}

/* The evidence keys report's findings carry (analyze/rules*.c), marked for
 * translation: text prints C_("evidence", key), JSON keeps the key. Doctor's
 * own are in render/doctor_render.c. A key missing here prints in English
 * and test_report_zh.c fails. */
static const char *const report_evidence_keys[] __attribute__((unused)) = {
    NC_("evidence", "achieved_occupancy_pct"),
    NC_("evidence", "allocation_idle_pct"),
    NC_("evidence", "backend"),
    NC_("evidence", "bank_conflict_pct"),
    NC_("evidence", "block_size"),
    NC_("evidence", "busy_time_compute_bound_pct"),
    NC_("evidence", "busy_time_latency_bound_pct"),
    NC_("evidence", "busy_time_memory_bound_pct"),
    NC_("evidence", "bytes"),
    NC_("evidence", "card_gib"),
    NC_("evidence", "collective"),
    NC_("evidence", "collectives"),
    NC_("evidence", "comm_ms"),
    NC_("evidence", "context_creation_idle_pct"),
    NC_("evidence", "copies"),
    NC_("evidence", "copy_blocking_pct"),
    NC_("evidence", "copy_call_idle_pct"),
    NC_("evidence", "copy_not_overlapped_pct"),
    NC_("evidence", "copy_time_pct"),
    NC_("evidence", "cuda_calls_idle_pct"),
    NC_("evidence", "data_loading_range"),
    NC_("evidence", "data_loading_share_pct"),
    NC_("evidence", "divergence_threshold_threads"),
    NC_("evidence", "dram_gbps"),
    NC_("evidence", "dram_roof_gbps"),
    NC_("evidence", "dram_throughput_pct"),
    NC_("evidence", "dtoh_gbps"),
    NC_("evidence", "evidence"),
    NC_("evidence", "evidence_source"),
    NC_("evidence", "exposed_ms"),
    NC_("evidence", "exposed_pct"),
    NC_("evidence", "free_idle_pct"),
    NC_("evidence", "gaps_ge_500ms"),
    NC_("evidence", "gpm_dram_bw_util_busy_pct"),
    NC_("evidence", "gpm_fp32_util_busy_pct"),
    NC_("evidence", "gpm_pipe_util_busy_pct"),
    NC_("evidence", "gpm_sm_util_busy_pct"),
    NC_("evidence", "gpm_tensor_util_busy_pct"),
    NC_("evidence", "gpu_busy_pct"),
    NC_("evidence", "gpu_idle_after_sync_ms"),
    NC_("evidence", "gpu_idle_pct"),
    NC_("evidence", "graph_kernel_pct"),
    NC_("evidence", "grid_blocks"),
    NC_("evidence", "host_dispatch_idle_pct"),
    NC_("evidence", "host_idle_pct"),
    NC_("evidence", "htod_gbps"),
    NC_("evidence", "idle_gaps"),
    NC_("evidence", "idle_per_sync_us"),
    NC_("evidence", "imbalance_pct"),
    NC_("evidence", "input_copy_mib"),
    NC_("evidence", "kernel"),
    NC_("evidence", "kernel_family"),
    NC_("evidence", "kernel_owner"),
    NC_("evidence", "kernel_time_ms"),
    NC_("evidence", "kernel_time_pct"),
    NC_("evidence", "kernels"),
    NC_("evidence", "kernels_affected"),
    NC_("evidence", "l1_shared_throughput_pct"),
    NC_("evidence", "last_to_arrive"),
    NC_("evidence", "launch_api_median_us"),
    NC_("evidence", "launch_api_time_ms"),
    NC_("evidence", "launch_delay_median_us"),
    NC_("evidence", "launch_idle_pct"),
    NC_("evidence", "launch_wait_pct"),
    NC_("evidence", "limiter"),
    NC_("evidence", "link_gbps"),
    NC_("evidence", "long_host_stretches"),
    NC_("evidence", "longest_gap_ms"),
    NC_("evidence", "low_occupancy_time_pct"),
    NC_("evidence", "low_util_chunks_of_30"),
    NC_("evidence", "max_bytes_used_pct"),
    NC_("evidence", "measured_by"),
    NC_("evidence", "memory_throughput_pct"),
    NC_("evidence", "module_load_idle_pct"),
    NC_("evidence", "occupancy_pct"),
    NC_("evidence", "other_host_work_share_pct"),
    NC_("evidence", "others_compute_ms"),
    NC_("evidence", "others_wait_ms"),
    NC_("evidence", "overlap_pct"),
    NC_("evidence", "overlap_with_kernels_pct"),
    NC_("evidence", "pageable_pct"),
    NC_("evidence", "peak_card_pct"),
    NC_("evidence", "peak_gib"),
    NC_("evidence", "phase"),
    NC_("evidence", "process"),
    NC_("evidence", "profiled_launches"),
    NC_("evidence", "queue_empty_pct"),
    NC_("evidence", "rank"),
    NC_("evidence", "rank_exposed_pct"),
    NC_("evidence", "ranks"),
    NC_("evidence", "readbacks"),
    NC_("evidence", "registers_per_thread"),
    NC_("evidence", "second_call"),
    NC_("evidence", "second_call_idle_ms"),
    NC_("evidence", "sectors_per_request"),
    NC_("evidence", "sectors_per_thread_access"),
    NC_("evidence", "shared_wavefronts_per_instruction"),
    NC_("evidence", "short_kernel_fixed_cost_pct"),
    NC_("evidence", "short_kernel_share_pct"),
    NC_("evidence", "short_kernels"),
    NC_("evidence", "sm_count"),
    NC_("evidence", "sm_idle_pct"),
    NC_("evidence", "sm_throughput_pct"),
    NC_("evidence", "small_grid_time_pct"),
    NC_("evidence", "smem_per_block"),
    NC_("evidence", "step_syncs"),
    NC_("evidence", "straggler_compute_ms"),
    NC_("evidence", "straggler_pid"),
    NC_("evidence", "straggler_rank"),
    NC_("evidence", "stretches_ending_in_input_copy"),
    NC_("evidence", "sync_idle_pct"),
    NC_("evidence", "sync_inner_op"),
    NC_("evidence", "sync_op"),
    NC_("evidence", "sync_op_calls"),
    NC_("evidence", "sync_op_syncs"),
    NC_("evidence", "sync_site"),
    NC_("evidence", "sync_time_ms"),
    NC_("evidence", "syncs"),
    NC_("evidence", "tail_idle_pct"),
    NC_("evidence", "tflops"),
    NC_("evidence", "tflops_roof"),
    NC_("evidence", "threads_per_instruction"),
    NC_("evidence", "threads_per_warp"),
    NC_("evidence", "top_call"),
    NC_("evidence", "top_call_cause"),
    NC_("evidence", "top_call_count"),
    NC_("evidence", "top_call_idle_ms"),
    NC_("evidence", "top_call_time_ms"),
    NC_("evidence", "top_function"),
    NC_("evidence", "host_function"),
    NC_("evidence", "host_function_pct"),
    NC_("evidence", "worker_function"),
    NC_("evidence", "worker_function_pct"),
    NC_("evidence", "worker_pid"),
    NC_("evidence", "top_function_share_pct"),
    NC_("evidence", "top_kernel"),
    NC_("evidence", "top_kernel_owner"),
    NC_("evidence", "top_kernel_share_pct"),
    NC_("evidence", "top_op"),
    NC_("evidence", "top_op_idle_pct"),
    NC_("evidence", "preproc_op"),
    NC_("evidence", "preproc_op_idle_pct"),
    NC_("evidence", "top_short_kernel"),
    NC_("evidence", "top_short_kernel_count"),
    NC_("evidence", "top_short_kernel_median_us"),
    NC_("evidence", "unit"),
    NC_("evidence", "unit_throughput_pct"),
    NC_("evidence", "wait_ms"),
    NC_("evidence", "wait_pct"),
    NC_("evidence", "one_time_stretch_ms"),
    NC_("evidence", "fp32_simt_gemm_pct"),
    NC_("evidence", "tensor_core_gain_x"),
    NC_("evidence", "attention_softmax_pct"),
    NC_("evidence", "fused_attention_pct"),
    NC_("evidence", "by_index_kernel_pct"),
    NC_("evidence", "cudnn_builds"),
    NC_("evidence", "cudnn_build_ms"),
    NC_("evidence", "cudnn_build_late"),
    NC_("evidence", "cudnn_attention_calls"),
    NC_("evidence", "token_batch"),
    NC_("evidence", "token_length"),
    NC_("evidence", "token_lookups"),
    NC_("evidence", "steps"),
    NC_("evidence", "masked_attention_calls"),
    NC_("evidence", "attention_calls"),
    NC_("evidence", "gil_handover_ms"),
    NC_("evidence", "gil_pauses"),
    NC_("evidence", "op_pauses"),
    NC_("evidence", "gil_pause_ms"),
    NC_("evidence", "compilations"),
    NC_("evidence", "recompilations"),
    NC_("evidence", "recompile_ms"),
    NC_("evidence", "run_share_pct"),
    NC_("evidence", "jit_idle_pct"),
    NC_("evidence", "kernel_recompilations"),
    NC_("evidence", "window_share_pct"),
    NC_("evidence", "window"),
    NC_("evidence", "compile_idle_pct"),
    NC_("evidence", "compile_late_share_pct"),
    NC_("evidence", "compile_function"),
    NC_("evidence", "compile_op"),
    NC_("evidence", "without_profiler_pct"),
    NC_("evidence", "kind"),
    NC_("evidence", "contention_idle_pct"),
    NC_("evidence", "launch_thread"),
    NC_("evidence", "launch_thread_on_cpu_pct"),
    NC_("evidence", "launch_thread_cpu_wait_pct"),
    NC_("evidence", "launch_thread_cuda_pct"),
    NC_("evidence", "launch_thread_sleep_pct"),
    NC_("evidence", "launch_thread_function"),
    NC_("evidence", "gil_idle_pct"),
    NC_("evidence", "cpu_wait_idle_pct"),
    NC_("evidence", "other_thread"),
    NC_("evidence", "other_thread_cpu_pct"),
    NC_("evidence", "other_thread_function"),
    NC_("evidence", "other_thread_call"),
    NC_("evidence", "threads"),
    NC_("evidence", "busy_threads"),
    NC_("evidence", "process_cpus_used"),
    NC_("evidence", "process_runq_threads"),
    NC_("evidence", "cpus"),
    NC_("evidence", "small_copies"),
    NC_("evidence", "median_copy_bytes"),
    NC_("evidence", "small_copy_gbps"),
    NC_("evidence", "syncs_after_upload"),
    NC_("evidence", "unified_memory_pct"),
    NC_("evidence", "stalled_kernel_pct"),
    NC_("evidence", "stalled_kernel_ms"),
    NC_("evidence", "idle_migrating_pct"),
    NC_("evidence", "kernel_stalled_pct"),
    NC_("evidence", "other_kernels"),
    NC_("evidence", "kernels_stalled"),
    NC_("evidence", "gpu_page_faults"),
    NC_("evidence", "cpu_page_faults"),
    NC_("evidence", "htod_mib"),
    NC_("evidence", "dtoh_mib"),
    NC_("evidence", "htod_ms"),
    NC_("evidence", "dtoh_ms"),
    NC_("evidence", "on_demand_mib"),
    NC_("evidence", "prefetched_mib"),
    NC_("evidence", "on_demand_gbps"),
    NC_("evidence", "dtod_mib"),
    NC_("evidence", "evicted_mib"),
    NC_("evidence", "thrashing"),
    NC_("evidence", "throttling"),
    NC_("evidence", "remote_maps"),
};

/* "    LABEL<spaces> ": the label padded to width display columns (it may be Chinese). */
static void padded(char *buf, size_t cap, const char *label, size_t width)
{
	size_t w = wrap_width(label, strlen(label)), n;
	snprintf(buf, cap, "    %s", label);
	n = strlen(buf);
	for (; w < width && n + 2 < cap; w++)
		buf[n++] = ' ';
	if (n + 2 <= cap)
		buf[n++] = ' ';
	buf[n] = 0;
}

/* The earlier finding (before i) that has action text among its own, or
 * NULL: a switch or a fix that explains several findings (anomaly
 * detection, find_unused_parameters) is one paragraph, not one a finding. */
static const struct finding *action_before(const struct finding_list *l, size_t i, const char *text)
{
	char u[sizeof(l->v[0].title)];
	for (size_t j = 0; j < i; j++)
		for (int b = 0; b < l->v[j].n_actions; b++)
			if (!strcmp(finding_action_text(u, sizeof(u), &l->v[j], b), text))
				return &l->v[j];
	return NULL;
}

/* The first colon outside parentheses (": ", or U+FF1A; "(" and U+FF08
 * open, ")" and U+FF09 close), or NULL. */
static const char *clause_colon(const char *s)
{
	int depth = 0;
	for (; *s; s++) {
		if (*s == '(' || !strncmp(s, "\xef\xbc\x88", 3))
			depth++;
		else if ((*s == ')' || !strncmp(s, "\xef\xbc\x89", 3)) && depth > 0)
			depth--;
		else if (!depth && ((s[0] == ':' && s[1] == ' ') || !strncmp(s, "\xef\xbc\x9a", 3)))
			return s;
	}
	return NULL;
}

/* The action's first clause (to its first colon outside parentheses, when
 * within a line's length), else its first 80 bytes cut after a word (or on
 * a character, Chinese having no spaces): what names it. */
static void first_clause(char *buf, size_t cap, const char *text)
{
	size_t n = strlen(text), cut = n;
	const char *c = clause_colon(text);
	if (c && (size_t)(c - text) <= 100)
		cut = (size_t)(c - text);
	else if (n > 80) {
		cut = 80;
		while (cut > 0 && ((unsigned char)text[cut] & 0xc0) == 0x80)
			cut--;
		size_t sp = cut;
		while (sp > 60 && text[sp] != ' ')
			sp--;
		if (text[sp] == ' ')
			cut = sp;
	}
	if (cut >= cap)
		cut = cap - 1;
	memcpy(buf, text, cut);
	buf[cut] = 0;
	if (cut < n && !(c && (size_t)(c - text) == cut))
		snprintf(buf + cut, cap - cut, "...");
}

const char *finding_action_block(char *buf, size_t cap, const struct finding_list *l, size_t i,
				 int k)
{
	char t[sizeof(l->v[0].title)], clause[128];
	const char *text = finding_action_text(t, sizeof(t), &l->v[i], k);
	const struct finding *same = action_before(l, i, text);
	if (!same) {
		snprintf(buf, cap, "%s", text);
		return buf;
	}
	first_clause(clause, sizeof(clause), text);
	snprintf(buf, cap, _("as under %s above: %s"), same->id, clause);
	return buf;
}

void finding_list_text_cols(FILE *out, const struct finding_list *l, size_t cols)
{
	char head[512], val[320], label[160];
	for (size_t i = 0; i < l->n; i++) {
		const struct finding *f = &l->v[i];
		const char *sev = f->severity == SEV_CRITICAL  ? _("CRITICAL")
				  : f->severity == SEV_WARNING ? _("WARNING")
							       : _("INFO");
		char t[sizeof(f->title)];
		int n = snprintf(head, sizeof(head), "[%s] %s: %s", sev, f->id,
				 finding_title(t, sizeof(t), f));
		if (f->impact_pct > 0 && n > 0 && (size_t)n < sizeof(head))
			snprintf(head + n, sizeof(head) - (size_t)n, _(" (impact %.1f%%)"),
				 f->impact_pct);
		if (cols)
			wrap_print(out, "", "    ", head, cols);
		else
			fprintf(out, "%s\n", head);
		for (int e = 0; e < f->n_ev; e++) {
			/* evidence keys are JSON keys; text shows them translated */
			padded(label, sizeof(label), C_("evidence", f->ev[e].key), 28);
			if (f->ev[e].is_num && f->ev[e].unknown)
				snprintf(val, sizeof(val), "?");
			else if (f->ev[e].is_num)
				snprintf(val, sizeof(val), "%.6g", f->ev[e].num);
			else
				snprintf(val, sizeof(val), "%s", f->ev[e].str);
			if (cols)
				wrap_print(out, label, "                                 ", val,
					   cols);
			else
				fprintf(out, "%s%s\n", label, val);
		}
		for (int a = 0; a < f->n_actions; a++) {
			char ab[sizeof(t) + 64];
			const char *text = finding_action_block(ab, sizeof(ab), l, i, a);
			if (cols)
				wrap_print(out, "  -> ", "     ", text, cols);
			else
				fprintf(out, "  -> %s\n", text);
		}
		fputc('\n', out);
	}
}

void finding_list_text(FILE *out, const struct finding_list *l)
{
	finding_list_text_cols(out, l, 0);
}
