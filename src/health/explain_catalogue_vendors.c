/*
 * explain_catalogue_vendors.c - error texts of AMD (ROCm, HIP, rocminfo) and
 * Intel (Level Zero, PyTorch XPU) GPUs, and the entries doctor's AMD and
 * Intel chain points to. Data only (see explain_catalogue_sys.c). Each
 * signature is text users paste (sources: the issues cited per entry).
 */
#include "health/explain_catalogue.h"

#define CK_ROCMINFO                                                                                \
	{                                                                                          \
		"rocminfo | grep -E 'Marketing Name|gfx'",                                         \
		    N_("the GPUs ROCm sees and their gfx targets")                                 \
	}
#define CK_TORCH_HIP                                                                               \
	{                                                                                          \
		"python -c 'import torch; print(torch.__version__, torch.version.hip, "            \
		"torch.cuda.is_available(), torch.cuda.get_arch_list())'",                         \
		    N_("a ROCm build, whether it sees the GPU, the gfx targets it carries")        \
	}

const struct explain_entry explain_vendors[] = {
    {"amd_smi_reading",
     EL_DRIVER,
     SEV_INFO,
     {"ROCm System Management Interface", "Concise Info", "End of ROCm SMI Log",
      "GPU Temp AvgPwr SCLK MCLK", "Device Node IDs Temp Power Partitions", "GFX_ACTIVITY",
      "UMC_ACTIVITY", "SOCKET_POWER", "THROTTLE_STATUS", NULL},
     {N_("reading rocm-smi or amd-smi"),
      N_("GPU% (rocm-smi) and GFX_ACTIVITY (amd-smi) are the firmware's average activity of "
	 "the graphics and compute engine: not NVIDIA's GPU-Util, and not how many compute "
	 "units work; VRAM% is memory allocated, not bandwidth"),
      {N_("a busy GPU that is slow: the kernels are small or wait on memory (the activity "
	  "says time, not work)"),
       N_("power N/A on every second die of an MI250X: its module reports power on one die"), NULL},
      {{"amd-smi metric", N_("activity, power, clocks, temperatures, throttle status")},
       {"amd-smi process", N_("who holds VRAM")},
       {"rocprofv3 --kernel-trace -- python train.py", N_("which kernels run, how long")}},
      {N_("watch over time, with each process's share: gpuscope monitor"), NULL}},
     {"gpuscope monitor", N_("busy, VRAM, clocks, power and temperatures of AMD GPUs over time")},
     "amdgpu sysfs documentation (gpu_busy_percent); rocm-smi and amd-smi output pasted in "
     "wandb/wandb#5449, ROCm/ROC-smi#86, ROCm/rocm-systems#1508, joular/powerjoular#67"},
    {"intel_smi_reading",
     EL_DRIVER,
     SEV_INFO,
     {"xpu-smi dump", "Timestamp, DeviceId", "GPU Utilization (%)", "GPU Frequency (MHz)",
      "GPU Memory Utilization (%)", "intel_gpu_top", "Render/3D", "VideoEnhance", "rc6", NULL},
     {N_("reading xpu-smi or intel_gpu_top"),
      N_("Intel reports each engine's busy share (Render/3D, Blitter, Video, Compute): a share "
	 "of time, not of how many Xe cores work; RC6 is the time the GT slept"),
      {N_("GPU Utilization N/A in xpu-smi: it could not read the engines here"), NULL},
      {{"xpu-smi stats -d 0", N_("engines, memory, power, temperature")},
       {"sudo intel_gpu_top", N_("engines and frequency, live")}},
      {N_("watch over time, with each process's share: gpuscope monitor"), NULL}},
     {"gpuscope monitor", N_("engines, frequency, power and throttling of Intel GPUs over time")},
     "xpu-smi output pasted in intel/xpumanager#98 and henrygd/beszel#755; intel_gpu_top -J "
     "in luisbocanegra/plasma-intel-gpu-monitor#4"},
    {"hip_no_binary",
     EL_RUNTIME,
     SEV_CRITICAL,
     {"hipErrorNoBinaryForGpu", "unable to find code object for all current devices",
      "couldn't find binary for current devices", "HIP error: invalid device function",
      "hip error invalid device function", "hipErrorInvalidDeviceFunction", NULL},
     {N_("the program carries no code for this AMD GPU's gfx target"),
      N_("ROCm binaries (PyTorch, rocBLAS, a HIP program) are compiled for a list of gfx "
	 "targets; the GPU's target (gfx1031, gfx803, ...) is not in it, so no kernel can run"),
      {N_("a consumer GPU that the ROCm build does not list (RDNA2 parts other than gfx1030, "
	  "RDNA3 other than gfx1100)"),
       N_("an old GPU that newer ROCm dropped (gfx803, gfx900)"),
       N_("a program built with --offload-arch for another GPU"), NULL},
      {CK_ROCMINFO, CK_TORCH_HIP},
      {N_("install a build whose targets include the GPU (newer ROCm wheels add targets)"),
       N_("for a GPU of a supported family: HSA_OVERRIDE_GFX_VERSION=10.3.0 (RDNA2) or "
	  "11.0.0 (RDNA3) makes ROCm load its sibling's code"),
       N_("rebuild a HIP program with --offload-arch=<the GPU's gfx target>"), NULL}},
     {"gpuscope doctor", N_("the GPU's gfx target against the framework's targets")},
     "ROCm/tensorflow-upstream#1800, ROCm/legacy-rocm-build#1530 and #2061"},
    {"rocm_no_kfd",
     EL_DRIVER,
     SEV_CRITICAL,
     {"ROCk module is NOT loaded", "Unable to open /dev/kfd read-write", "hsa api call failure",
      "HSA_STATUS_ERROR_OUT_OF_RESOURCES", "not supported in kfd", "PCI rejects atomics",
      "hipErrorNoDevice", "no ROCm-capable device is detected", NULL},
     {N_("ROCm cannot open the GPU (/dev/kfd)"),
      N_("ROCm reaches AMD GPUs through the kernel's KFD device, /dev/kfd; rocminfo and every "
	 "HIP program fail when it is absent, not permitted, or refuses the GPU"),
      {N_("the user is not in the render (newer kernels) or video group"),
       N_("a container started without --device=/dev/kfd --device=/dev/dri"),
       N_("the GPU is not supported by KFD (dmesg: 'not supported in kfd'), or needs PCIe "
	  "atomics the CPU or board lacks (dmesg: 'PCI rejects atomics')"),
       N_("the amdgpu module is not loaded"), NULL},
      {{"ls -l /dev/kfd /dev/dri/render*; groups", N_("the nodes' groups and the user's")},
       {"sudo dmesg | grep -iE 'kfd|amdgpu'", N_("whether KFD took the GPU")},
       CK_ROCMINFO},
      {N_("sudo usermod -aG render,video $USER, then log in again"),
       N_("in a container: --device=/dev/kfd --device=/dev/dri --group-add video"),
       N_("a GPU KFD rejects needs another GPU or slot (PCIe atomics come from the CPU's "
	  "lanes)"),
       NULL}},
     {"gpuscope doctor", N_("/dev/kfd, the render nodes and their permissions")},
     "ROCm/rocminfo#34 and #38, ROCm/legacy-rocm-build#1109, #1174 and #2232"},
    {"gpu_node_permission",
     EL_DRIVER,
     SEV_CRITICAL,
     {"/dev/kfd: Permission denied", "/dev/dri/renderD128: Permission denied",
      "is member of render group", "check for video group membership", "render group", NULL},
     {N_("the user may not open the GPU's device node"),
      N_("AMD (/dev/kfd, /dev/dri/renderD*) and Intel (/dev/dri/renderD*) GPUs are opened "
	 "through device nodes owned by the render or video group"),
      {N_("the user is not in that group (or did not log in again after being added)"),
       N_("a container without the nodes or the group"), NULL},
      {{"ls -l /dev/kfd /dev/dri/; id", N_("the nodes' owners and the user's groups")}},
      {N_("sudo usermod -aG render,video $USER, then log in again"),
       N_("docker: --device=/dev/dri (and /dev/kfd for AMD) --group-add render"), NULL}},
     {"gpuscope doctor", N_("whether each node can be opened")},
     "ROCm/rocminfo#34"},
    {"framework_not_rocm",
     EL_FRAMEWORK,
     SEV_CRITICAL,
     {"torch.version.hip none", "not compiled with rocm", "rocm wheel", NULL},
     {N_("the framework is not a ROCm build"),
      N_("PyTorch for AMD GPUs is a separate build (torch.version.hip set); a CUDA or CPU "
	 "wheel never uses an AMD GPU"),
      {N_("pip installed the default (CUDA) wheel"), NULL},
      {CK_TORCH_HIP},
      {N_("pip install torch --index-url https://download.pytorch.org/whl/rocm6.2"), NULL}},
     {"gpuscope doctor", N_("torch.version.hip and its targets")},
     "PyTorch installation matrix (ROCm wheels)"},
    {"hip_oom",
     EL_FRAMEWORK,
     SEV_WARNING,
     {"HIP out of memory", "HIP out of memory tried to allocate", "torch OutOfMemoryError HIP",
      "hipErrorOutOfMemory", "PYTORCH_HIP_ALLOC_CONF", NULL},
     {N_("the AMD GPU ran out of memory"),
      N_("PyTorch on ROCm asked the GPU for more memory than was free"),
      {N_("the batch, sequence or model is too large"),
       N_("fragmentation: memory free in total but not as one block"),
       N_("another process holds VRAM"), NULL},
      {{"amd-smi process", N_("who holds VRAM (rocm-smi --showpids on older ROCm)")},
       {"gpuscope monitor", N_("VRAM, GTT and each process's memory over time")}},
      {N_("a smaller batch or sequence, activation checkpointing, mixed precision"),
       N_("PYTORCH_HIP_ALLOC_CONF=expandable_segments:True against fragmentation"), NULL}},
     {"gpuscope vram", N_("what fits")},
     "PyTorch ROCm allocator (PYTORCH_HIP_ALLOC_CONF)"},
    {"ze_device_lost",
     EL_HARDWARE,
     SEV_CRITICAL,
     {"UR_RESULT_ERROR_DEVICE_LOST", "ZE_RESULT_ERROR_DEVICE_LOST",
      "level_zero backend failed with error: 20", "GPU HANG", NULL},
     {N_("the Intel GPU was lost (a hang and reset)"),
      N_("Level Zero reports the device lost when the kernel driver reset the GPU after a "
	 "hang: every later call on it fails"),
      {N_("a kernel that ran too long or faulted (i915/xe reset it)"),
       N_("out of device memory on drivers that report it as device lost"),
       N_("a driver bug: newer compute runtimes fix many"), NULL},
      {{"sudo dmesg | grep -iE 'i915|xe|GPU HANG|reset'", N_("what the driver reset and why")},
       {"xpu-smi stats -d 0", N_("memory and engines (Intel XPU Manager)")}},
      {N_("update the Intel compute runtime and kernel driver"),
       N_("a smaller batch if memory was full"), NULL}},
     {"gpuscope monitor", N_("engines, memory and throttling of the Intel GPU")},
     "pytorch/pytorch#177714 and #190972, intel/torch-xpu-ops#2990"},
    {"ze_uninitialized",
     EL_DRIVER,
     SEV_CRITICAL,
     {"ZE_RESULT_ERROR_UNINITIALIZED", "UR_RESULT_ERROR_UNINITIALIZED", "zeInit failed",
      "No device of requested type available", "torch.xpu.is_available() False", NULL},
     {N_("Level Zero found no Intel GPU"),
      N_("SYCL and PyTorch XPU reach Intel GPUs through Level Zero; it found no driver or "
	 "no device it may open"),
      {N_("the compute runtime (libze-intel-gpu1, intel-opencl-icd) is not installed"),
       N_("the user is not in the render group, or a container lacks --device=/dev/dri"),
       N_("the GPU runs on a driver the runtime does not support (i915 vs xe)"), NULL},
      {{"ls -l /dev/dri; groups", N_("the render nodes and the user's groups")},
       {"xpu-smi discovery", N_("the GPUs Level Zero sees")}},
      {N_("apt install libze1 libze-intel-gpu1 intel-opencl-icd"),
       N_("sudo usermod -aG render $USER, then log in again"), NULL}},
     {"gpuscope doctor", N_("the Intel chain: module, render node, Level Zero, torch.xpu")},
     "Intel compute-runtime and PyTorch XPU installation guides"},
};
const size_t explain_vendors_n = sizeof(explain_vendors) / sizeof(explain_vendors[0]);
