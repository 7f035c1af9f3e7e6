/*
 * explain.c - the explain catalogue (see explain.h). Matching is by
 * case-insensitive keywords: the first entry with any keyword contained in
 * the query wins, so specific entries come before general ones.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "health/explain.h"
#include "health/xid.h"
#include "util/json_out.h"

struct explain_rule {
	const char *keys[8];
	struct explain_entry e;
};

static const struct explain_rule rules[] = {
    {{"fallen off the bus", NULL},
     {"xid79",
      "GPU has fallen off the bus (XID 79)",
      "the GPU stopped answering on PCIe; the driver has lost it until a reboot",
      {"power delivery (PSU, power cables, transient overload)", "overheating",
       "PCIe link / riser / slot problem", "driver or firmware fault", NULL},
      {"dmesg | grep -iE 'xid|aer|pcie'", "gpuscope doctor (temperature, pcie, ecc)",
       "nvidia-smi -q -d TEMPERATURE,POWER", "reseat the card and cables; reboot", NULL},
      "NVIDIA XID Errors (docs.nvidia.com/deploy/xid-errors); seeds 5.x"}},
    {{"code 43", "error 43", "code43", NULL},
     {"windows_code_43",
      "Windows Device Manager error code 43",
      "Windows stopped the GPU because the driver reported a problem",
      {"driver installation broken or mismatched (clean reinstall with DDU)",
       "GPU passed through to a VM without hiding the hypervisor (older GeForce drivers)",
       "insufficient power or a failing card", "BIOS/firmware issue (Above 4G decoding, ReBAR)",
       NULL},
      {"reinstall the driver cleanly (DDU, then the latest driver)",
       "check power cables and try another slot", "update the motherboard BIOS",
       "test the card in another machine", NULL},
      "seeds 5.x; Microsoft Device Manager error codes"}},
    {{"crash dump", "gpu crash", "nv-gpudump", "gpu core dump", NULL},
     {"gpu_crash_dump",
      "GPU crash dump",
      "the driver or CUDA wrote a dump of GPU state after a fault (Nsight Aftermath, CUDA "
      "coredump, nvidia-bug-report)",
      {"an application fault on the GPU (illegal address, trap)", "a driver/GPU hang (TDR)",
       "hardware fault (look for XIDs)", NULL},
      {"look at the XIDs logged at the same time: dmesg | grep Xid",
       "CUDA: CUDA_ENABLE_COREDUMP_ON_EXCEPTION=1 and cuda-gdb -c core to see the kernel",
       "Windows/graphics: open the dump with Nsight Graphics (Aftermath)",
       "run the program under compute-sanitizer", NULL},
      "seeds 5.x; CUDA-GDB documentation (GPU core dump support)"}},
    {{"tdr", "display driver stopped responding", "timeout detection", "nvlddmkm", NULL},
     {"tdr",
      "Windows TDR: display driver stopped responding and has recovered",
      "Windows reset the GPU because a command ran longer than TdrDelay (2 s by default)",
      {"a long-running kernel on a GPU that also drives the display", "a driver hang",
       "overclock / power instability", NULL},
      {"split long kernels into shorter launches", "use a GPU without a display or TCC mode",
       "raise TdrDelay in the registry (HKLM\\System\\CurrentControlSet\\Control\\"
       "GraphicsDrivers)",
       "remove overclocks", NULL},
      "Microsoft, Timeout Detection and Recovery (TDR)"}},
    {{"no kernel image is available", "no kernel image", NULL},
     {"no_kernel_image",
      "no kernel image is available for execution on the device",
      "the binary has no SASS for this GPU's architecture and no PTX the driver can JIT",
      {"the build targets older/newer architectures only (e.g. PyTorch wheel without sm_120)",
       "a custom extension compiled with the wrong TORCH_CUDA_ARCH_LIST / -gencode", NULL},
      {"gpuscope doctor --binary PATH (lists the SM architectures in the binary)",
       "cuobjdump --list-elf PATH", "rebuild with -gencode for the GPU's sm_XX or add PTX", NULL},
      "CUDA C Programming Guide, binary and PTX compatibility"}},
    {{"not compatible with the current pytorch", "capability sm_", "sm_120", "is not compatible",
      NULL},
     {"arch_unsupported",
      "CUDA capability sm_XX is not compatible with the current PyTorch",
      "the installed PyTorch was not compiled for this GPU's architecture (e.g. sm_120 "
      "Blackwell RTX 50xx on a wheel built for CUDA 12.4 or older)",
      {"the PyTorch wheel is built for an older CUDA that cannot target the GPU",
       "a stale or CPU wheel pulled by another package", NULL},
      {"python -c 'import torch; print(torch.version.cuda, torch.cuda.get_arch_list())'",
       "install a wheel for a CUDA that supports the GPU (sm_120: cu128 or newer)",
       "gpuscope doctor --binary .../torch/lib/libtorch_cuda.so", NULL},
      "seeds 5.x; PyTorch release notes"}},
    {{"is_available() false", "is_available false", "is_available()", "torch.cuda.is_available",
      NULL},
     {"torch_no_cuda",
      "torch.cuda.is_available() returns False",
      "PyTorch cannot use any GPU; the chain driver -> device -> runtime -> framework is broken "
      "somewhere",
      {"a CPU-only PyTorch build (torch.version.cuda is None)",
       "no driver, or a driver older than PyTorch's CUDA",
       "CUDA_VISIBLE_DEVICES hides the GPUs, or a container without --gpus",
       "the GPU's architecture is not in the build", NULL},
      {"gpuscope doctor", "python -c 'import torch; print(torch.version.cuda)'",
       "nvidia-smi (driver and CUDA version)", "echo $CUDA_VISIBLE_DEVICES", NULL},
      "seeds 5.x (PyTorch GPU verification chain)"}},
    {{"older than the cuda runtime", "driver version is insufficient", "insufficient for cuda",
      "driver too old", "driver older", "cudaerrorinsufficientdriver", NULL},
     {"driver_too_old",
      "CUDA driver version is insufficient for CUDA runtime version",
      "the program's CUDA runtime is newer than the CUDA version the driver supports",
      {"an old driver with a new toolkit or framework wheel",
       "a container image newer than the "
       "host driver",
       NULL},
      {"nvidia-smi (top right: CUDA Version the driver supports)", "gpuscope doctor",
       "upgrade the driver, or use a build for the older CUDA, or cuda-compat on datacenter GPUs",
       NULL},
      "CUDA Toolkit Release Notes, Tables 2-3 (minimum driver versions)"}},
    {{"container", "docker", "no cuda-capable device", "nvidia_visible_devices", "kubernetes",
      NULL},
     {"no_gpu_visible",
      "container without the GPU / no CUDA-capable device is detected",
      "the process cannot see any GPU although the host has one",
      {"the container was started without --gpus all (or the NVIDIA container toolkit)",
       "CUDA_VISIBLE_DEVICES is empty or wrong", "kubernetes pod without nvidia.com/gpu limits",
       NULL},
      {"ls /dev/nvidia*", "nvidia-smi inside the container",
       "echo $CUDA_VISIBLE_DEVICES "
       "$NVIDIA_VISIBLE_DEVICES",
       "gpuscope doctor", NULL},
      "NVIDIA Container Toolkit documentation"}},
    {{"mig", "time-slicing", "time slicing", "mps", NULL},
     {"mig_sharing",
      "MIG and time-slicing",
      "the GPU is partitioned (MIG: isolated slices) or shared in time between processes",
      {"MIG enabled: each process sees only its slice's SMs and memory",
       "time-slicing / several processes: kernels interleave and each runs slower", NULL},
      {"nvidia-smi -L (MIG devices)", "gpuscope doctor (mig_enabled, gpu_shared)",
       "nvidia-smi to list processes on the GPU", NULL},
      "NVIDIA MIG User Guide; Kubernetes device plugin time-slicing"}},
    {{"out of memory", "oom", "cudaerrormemoryallocation", NULL},
     {"cuda_oom",
      "CUDA out of memory",
      "an allocation on the GPU failed: the memory in use plus the request exceeds the GPU's",
      {"batch size / model too large", "another process holds GPU memory",
       "fragmentation in the caching allocator", "a leak (tensors kept alive across steps)", NULL},
      {"nvidia-smi (memory used and by whom)", "torch.cuda.memory_summary()",
       "smaller batch, activation checkpointing, mixed precision",
       "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True", NULL},
      "PyTorch CUDA semantics (memory management)"}},
};

static int contains_ci(const char *hay, const char *needle)
{
	size_t n = strlen(needle);
	for (; *hay; hay++)
		if (strncasecmp(hay, needle, n) == 0)
			return 1;
	return 0;
}

const struct explain_entry *explain_lookup(const char *query, int *xid_code)
{
	const char *p = query;
	char *end;

	*xid_code = -1;
	while (isspace((unsigned char)*p))
		p++;
	if (strncasecmp(p, "xid", 3) == 0) {
		p += 3;
		while (*p == ' ' || *p == ':')
			p++;
	}
	long v = strtol(p, &end, 10);
	if (end != p && v >= 0 && v < 100000) {
		while (isspace((unsigned char)*end))
			end++;
		if (*end == 0) {
			*xid_code = (int)v;
			return NULL;
		}
	}
	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
		for (int k = 0; rules[i].keys[k]; k++)
			if (contains_ci(query, rules[i].keys[k]))
				return &rules[i].e;
	return NULL;
}

void explain_print_text(FILE *f, const struct explain_entry *e, int xid_code)
{
	if (xid_code >= 0) {
		const struct xid_info *x = xid_lookup(xid_code);
		fprintf(f, "XID %d: %s\n\n", xid_code, x ? x->name : "not in gpuscope's catalogue");
		if (x) {
			fprintf(f, "meaning:  %s\nlikely cause: %s\nchecks:\n  1. %s\n", x->meaning,
				x->cause, x->action);
			fprintf(f, "  2. dmesg | grep -i xid (what came before it)\n"
				   "  3. gpuscope doctor\n");
		}
		fprintf(f, "source:   NVIDIA XID Errors (docs.nvidia.com/deploy/xid-errors)\n");
		return;
	}
	fprintf(f, "%s\n\nmeaning:  %s\nlikely causes (most likely first):\n", e->title,
		e->meaning);
	for (int i = 0; i < EXPLAIN_MAX_ITEMS && e->causes[i]; i++)
		fprintf(f, "  %d. %s\n", i + 1, e->causes[i]);
	fprintf(f, "checks to run:\n");
	for (int i = 0; i < EXPLAIN_MAX_ITEMS && e->checks[i]; i++)
		fprintf(f, "  %d. %s\n", i + 1, e->checks[i]);
	fprintf(f, "source:   %s\n", e->source);
}

void explain_print_json(FILE *f, const struct explain_entry *e, int xid_code)
{
	struct json_out j;
	json_out_init(&j, f, 1);
	json_begin_object(&j);
	json_kv_string(&j, "schema", "gpuscope.explain.v1");
	if (xid_code >= 0) {
		const struct xid_info *x = xid_lookup(xid_code);
		json_kv_string(&j, "id", "xid");
		json_kv_int(&j, "code", xid_code);
		json_kv_bool(&j, "catalogued", x != NULL);
		json_kv_string(&j, "title", x ? x->name : "not in gpuscope's catalogue");
		if (x) {
			json_kv_string(&j, "meaning", x->meaning);
			json_key(&j, "causes");
			json_begin_array(&j);
			json_string(&j, x->cause);
			json_end_array(&j);
			json_key(&j, "checks");
			json_begin_array(&j);
			json_string(&j, x->action);
			json_string(&j, "dmesg | grep -i xid");
			json_string(&j, "gpuscope doctor");
			json_end_array(&j);
		}
		json_kv_string(&j, "source",
			       "NVIDIA XID Errors (docs.nvidia.com/deploy/xid-errors)");
	} else {
		json_kv_string(&j, "id", e->id);
		json_kv_string(&j, "title", e->title);
		json_kv_string(&j, "meaning", e->meaning);
		json_key(&j, "causes");
		json_begin_array(&j);
		for (int i = 0; i < EXPLAIN_MAX_ITEMS && e->causes[i]; i++)
			json_string(&j, e->causes[i]);
		json_end_array(&j);
		json_key(&j, "checks");
		json_begin_array(&j);
		for (int i = 0; i < EXPLAIN_MAX_ITEMS && e->checks[i]; i++)
			json_string(&j, e->checks[i]);
		json_end_array(&j);
		json_kv_string(&j, "source", e->source);
	}
	json_end_object(&j);
	fputc('\n', f);
}
