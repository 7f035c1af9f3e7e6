"""torch_stft_preproc: spectrograms computed on the main thread, outside any DataLoader.

Each step makes a batch of 64 one-second waveforms (16 kHz) on the host,
turns them into log-mel-like spectrograms with torch.stft on the CPU (and a
NumPy filterbank matmul), then trains a small 2-D CNN on the GPU (bf16
autocast). The host's ~100 ms of preprocessing per step dwarfs the GPU
work. Expected (issue 36 item 6): input_pipeline whose evidence names the
preprocessing function (aten::stft in the trace; torch.stft / NumPy's matmul
in the recording's host samples), with the advice to move it to the GPU
(torch.stft on CUDA tensors, torchaudio on the device) or to DataLoader
workers; never CUDA graphs as the first fix. --fixed: the waveforms go to
the GPU first and torch.stft runs there.
"""
import common

args = common.parse("torch_stft_preproc", __doc__, steps=10, warmup=2,
                    sizes={"batch": (64, 4), "samples": (16000, 4000)},
                    flag=("fixed", "the STFT on the GPU"))

import numpy as np  # noqa: E402
import torch  # noqa: E402

import torch_driver as td  # noqa: E402

N_FFT, HOP, MELS = 512, 128, 64


def setup(a, dev):
    rng = np.random.default_rng(2)
    fb = torch.from_numpy(rng.random((N_FFT // 2 + 1, MELS), dtype=np.float32))
    model = torch.nn.Sequential(torch.nn.Conv2d(1, 32, 3, padding=1), torch.nn.ReLU(),
                                torch.nn.Conv2d(32, 32, 3, padding=1), torch.nn.ReLU(),
                                torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(),
                                torch.nn.Linear(32, 10)).to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, fused=dev.type == "cuda")
    y = torch.randint(0, 10, (a.batch,)).to(dev)
    return {"m": model, "opt": opt, "fb": fb, "fb_dev": fb.to(dev), "y": y, "dev": dev,
            "rng": rng, "a": a}


def features(s, wave):
    on = wave.device
    win = torch.hann_window(N_FFT, device=on)
    spec = torch.stft(wave, N_FFT, HOP, window=win, return_complex=True).abs().pow(2)
    fb = s["fb_dev"] if on.type != "cpu" else s["fb"]
    return torch.log1p(spec.transpose(1, 2) @ fb).unsqueeze(1)  # batch x 1 x frames x mels


def step(s, i):
    a = s["a"]
    wave = torch.from_numpy(s["rng"].standard_normal((a.batch, a.samples), dtype=np.float32))
    if a.fixed:
        x = features(s, wave.to(s["dev"]))
    else:
        x = features(s, wave).to(s["dev"])  # the STFT on the training thread's CPU
    td.train_step(s, lambda: torch.nn.functional.cross_entropy(s["m"](x).float(), s["y"]))


td.run("torch_stft_preproc", args, setup, step, td.loss_ok,
       extra=lambda s: {"stft_on": "gpu" if s["a"].fixed else "cpu"})
