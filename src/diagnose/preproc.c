/*
 * preproc.c - host preprocessing named from the evidence (preproc.h). The
 * words are the ops and modules the preprocessing of audio, images and text
 * runs in: PyTorch's CPU ops in a trace without Python stacks (aten::stft,
 * aten::fft_*), the Python modules in host samples (torchaudio, PIL,
 * cv2, numpy, librosa, scipy, tokenizers).
 */
#include <string.h>

#include "analyze/analysis.h"
#include "diagnose/finding.h"
#include "diagnose/preproc.h"
#include "diagnose/thresholds.h"
#include "util/i18n.h"

const char *preproc_word(const char *s)
{
	static const char *const w[] = {
	    "stft",    "aten::fft", "torchaudio", "PIL",	 "Image.",	"cv2",	    "numpy",
	    "librosa", "scipy",	    "tokenizers", "decode_jpeg", "spectrogram", "resample", NULL};
	/* a host function reads "name (file:line)": the words count in the
	 * name, and in the file only as a library's folder (the program's own
	 * jax_numpy_feed.py is no NumPy) */
	static const char *const dirs[] = {"/numpy/", "/PIL/", "/torchaudio/", "/librosa/",
					   "/scipy/", "/cv2/", "/tokenizers/", NULL};
	if (!s)
		return NULL;
	const char *paren = strstr(s, " (");
	size_t n = paren ? (size_t)(paren - s) : strlen(s);
	for (const char *const *p = w; *p; p++) {
		const char *at = strstr(s, *p);
		if (at && (size_t)(at - s) < n)
			return *p;
	}
	for (const char *const *p = dirs; paren && *p; p++)
		if (strstr(paren, *p))
			return *p;
	return NULL;
}

int adv_preprocessing(struct finding *f, const struct analysis *a)
{
	static const char *const keys[] = {"preproc_op", "top_op", "host_function", "top_function"};
	const char *what = NULL;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]) && !what; i++) {
		const struct evidence *e = finding_get(f, keys[i]);
		if (e && !e->is_num && preproc_word(e->str))
			what = e->str;
	}
	if (!what)
		return 0;
	switch (a->prog.kind) {
	case PK_PYTORCH:
		finding_action(
		    f,
		    N_("the host's time is preprocessing on the training thread (%s): run "
		       "it on the GPU (torch.stft, torchaudio.transforms or "
		       "torchvision.transforms.v2 on CUDA tensors), or in DataLoader "
		       "workers (do it in the Dataset's __getitem__, num_workers > 0)"),
		    what);
		break;
	case PK_JAX:
		finding_action(
		    f,
		    N_("the host's time is preprocessing (%s): do it on the device inside "
		       "the jitted step (jax.numpy, jnp.fft), or on a producer thread that "
		       "jax.device_put's the next batch"),
		    what);
		break;
	default:
		finding_action(
		    f,
		    N_("the host's time is preprocessing (%s): do it on the GPU (CuPy, "
		       "cuFFT, NPP), or on another thread or process while the GPU works"),
		    what);
	}
	return 1;
}

const char *compile_word(const char *s)
{
	/* the compilers' entry points as host samples name them ("name
	 * (file:line) in caller ..."): JAX's jax/_src/compiler.py and pxla,
	 * torch.compile's dynamo and inductor, Triton's and CuPy's compilers,
	 * Triton's autotuner, Numba's dispatcher */
	static const char *const w[] = {"backend_compile",     "compile_or_get_cached",
					"_cached_compilation", "lower_sharding_computation",
					"compile_fx",	       "convert_frame",
					"_compile_inner",      "compile_with_cache",
					"_compile_for_args",   NULL};
	static const char *const files[] = {
	    "(compiler.py:",  "(compile_fx.py:", "(convert_frame.py:",
	    "(autotuner.py:", "(codecache.py:",	 NULL};
	if (!s)
		return NULL;
	/* only the function itself and its own file, not its callers */
	const char *in = strstr(s, ") in ");
	size_t n = in ? (size_t)(in - s) : strlen(s);
	for (const char *const *p = w; *p; p++) {
		const char *at = strstr(s, *p);
		if (at && (size_t)(at - s) < n)
			return *p;
	}
	for (const char *const *p = files; *p; p++) {
		const char *at = strstr(s, *p);
		if (at && (size_t)(at - s) < n)
			return *p;
	}
	return NULL;
}

int adv_compiling(struct finding *f, const struct analysis *a)
{
	const struct evidence *e = finding_get(f, "host_function");
	const struct evidence *pct = finding_get(f, "host_function_pct");
	if (!e || e->is_num || !compile_word(e->str) || !pct || !pct->is_num ||
	    pct->num < TH_COMPILE_FUNCTION_PCT)
		return 0;
	switch (a->prog.kind) {
	case PK_JAX:
		finding_action(
		    f,
		    N_("the host's time is XLA compiling (%s, %.0f%% of the host's idle): "
		       "each new input shape or static value makes jax.jit compile and "
		       "autotune again: pad or bucket the dimensions that change to a few "
		       "sizes; JAX_LOG_COMPILES=1 shows each compilation and its shapes, "
		       "and jax_compilation_cache_dir keeps them across runs"),
		    e->str, pct->num);
		break;
	case PK_PYTORCH:
		finding_action(
		    f,
		    N_("the host's time is compilation (%s, %.0f%% of the host's idle): "
		       "torch.compile compiles again when a guard fails (a new shape, a "
		       "Python value): TORCH_LOGS=recompiles names the guard; mark the "
		       "changing dimension dynamic (torch._dynamo.mark_dynamic) or pad it "
		       "to a few sizes"),
		    e->str, pct->num);
		break;
	default:
		finding_action(f,
			       N_("the host's time is compilation (%s, %.0f%% of the host's "
				  "idle): compile each kernel once, before the loop, and keep "
				  "it; specialise on a few sizes"),
			       e->str, pct->num);
	}
	return 1;
}
