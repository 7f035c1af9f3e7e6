/*
 * preproc.h - preprocessing on the host, named (issue #36 item 6): when the
 * op or function that holds the host while the GPU idles is a preprocessing
 * library's (torch.stft, torchaudio, PIL, OpenCV, NumPy, librosa, SciPy,
 * tokenizers), host_overhead says so and advises moving it to the GPU or to
 * workers, not CUDA graphs.
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

#endif
