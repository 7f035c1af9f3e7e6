/*
 * preproc.h - preprocessing on the host, named (issue #36 item 6): when the
 * op or function that holds the host while the GPU idles is a preprocessing
 * library's (torch.stft, torchaudio, PIL, OpenCV, NumPy, librosa, SciPy,
 * tokenizers), host_overhead says so and advises moving it to the GPU or to
 * workers, not CUDA graphs. The same for compilation: when the host's
 * function is a compiler's (jax_shapes on the H100: backend_compile_and_load
 * held 83% of the host's idle, with XLA's autotuning kernels between, so no
 * GPU-idle stretch ended in a module load and recompilation did not fire).
 */
#ifndef GPUSCOPE_PREPROC_H
#define GPUSCOPE_PREPROC_H

struct analysis;
struct finding;

/* The preprocessing word in s ("stft", "PIL", ...), NULL when none. */
const char *preproc_word(const char *s);

/* When f's top_op, host_function or top_function is preprocessing: the
 * action that moves it, in the program's terms. 1 when added. */
int adv_preprocessing(struct finding *f, const struct analysis *a);

/* The compiler's word in host function s ("backend_compile", "compile_fx",
 * ...), NULL when none. */
const char *compile_word(const char *s);

/* When f's host_function is a compiler's (XLA through jax.jit, torch.compile,
 * Triton, CuPy, Numba) and holds at least TH_COMPILE_FUNCTION_PCT of the
 * host's idle: the action that stops the compiling, in the program's terms
 * (per-step advice, CUDA graphs or a bigger jit, does not shorten it). 1
 * when added. */
int adv_compiling(struct finding *f, const struct analysis *a);

#endif
