/*
 * xid_texts.c - what gpuscope says about each kind of XID (meaning, causes
 * most likely first, checks, fixes) and NVIDIA's resolution buckets in plain
 * words. The rows that point here are in xid_catalogue.c; xid.h names the
 * catalogue's edition.
 */
#include <stddef.h>

#include "health/xid.h"
#include "health/xid_texts.h"
#include "util/i18n.h"

const char xid_catalogue_source[] =
    "NVIDIA Xid Catalog, docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html "
    "(XIDs 1-172, newest rows CUDA 12.9 / driver R575; read 2026-12-03)";

static const struct {
	const char *name, *action;
} buckets[XB_COUNT] = {
    [XB_NONE] = {"", N_("the catalogue names no action; see the notes below")},
    [XB_CONTACT_SUPPORT] =
	{"CONTACT_SUPPORT",
	 N_("contact your support organisation with nvidia-bug-report.sh output")},
    [XB_RESTART_APP] = {"RESTART_APP",
			N_("restart the application; no GPU reset or reboot is needed")},
    [XB_IGNORE] = {"IGNORE", N_("no action is required")},
    [XB_RESET_GPU] = {"RESET_GPU",
		      N_("drain the GPU's work, then reset it (nvidia-smi -r -i N) or reboot")},
    [XB_RESTART_BM] = {"RESTART_BM", N_("restart the machine")},
    [XB_RESTART_VM] = {"RESTART_VM", N_("restart the virtual machine that owns the GPU")},
    [XB_CHECK_MECHANICALS] = {"CHECK_MECHANICALS",
			      N_("check the card's seating and every power and signal connector")},
    [XB_UPDATE_SWFW] = {"UPDATE_SWFW", N_("update the driver and firmware to the latest versions")},
    [XB_CHECK_APP_CUDA] = {"CHECK_APP/CUDA",
			   N_("check the application: it passed bad data or misused the GPU (the "
			      "pid in the line names it)")},
    [XB_INVESTIGATE_SW] = {"INVESTIGATE_SW",
			   N_("investigate the software, the application's or NVIDIA's (the pid in "
			      "the line names the process)")},
    [XB_INVESTIGATE_SW_USER] = {"INVESTIGATE_SW_USER",
				N_("find the software or the person that took the link down, if "
				   "it was not expected")},
    [XB_INVESTIGATE_LINK_SI] = {"INVESTIGATE_LINK_SI",
				N_("investigate the link's signal integrity: cables, seating, "
				   "temperature")},
    [XB_WORKFLOW_XID_13] = {"WORKFLOW_XID_13",
			    N_("repeats on the same TPC/GPC: run DCGM diagnostics, then field "
			       "diagnostics; once, or in one program only: check the application")},
    [XB_WORKFLOW_XID_31] = {"WORKFLOW_XID_31",
			    N_("repeated faults on the same GPU: run DCGM diagnostics; faults on "
			       "several GPUs, or once: check the application")},
    [XB_WORKFLOW_XID_45] = {"WORKFLOW_XID_45",
			    N_("alone: restart the fabric manager (NVSwitch systems); with other "
			       "XIDs: follow those")},
    [XB_WORKFLOW_XID_48] = {"WORKFLOW_XID_48",
			    N_("alone: reset the GPU; with XID 63 or 64: drain and reset; "
			       "repeated: run field diagnostics")},
    [XB_WORKFLOW_NVLINK_ERR] = {"WORKFLOW_NVLINK_ERR",
				N_("decode the registers in the message (NVIDIA's NVLink "
				   "workflow); a GPU reset or reboot clears the link")},
    [XB_WORKFLOW_NVLINK5_ERR] = {"WORKFLOW_NVLINK5_ERR",
				 N_("decode intrInfo and errorStatus in the message with NVIDIA's "
				    "XID 144-150 decode table; it gives the action")},
    [XB_XID_154] = {"XID_154", N_("follow the recovery action that XID 154 reports")},
    [XB_XID_154_INFO] = {"N/A", N_("informational: act on the XID it accompanies")},
    [XB_XID_137_FLOW] = {"XID_137_FLOW",
			 N_("check the application's peer-to-peer accesses with cuda-gdb or "
			    "compute-sanitizer")},
    [XB_CHECK_UVM] = {"CHECK_UVM", N_("reset the GPU if UVM or vGPU is in use, else no action")},
    [XB_SYMPATHETIC] = {"IGNORE (sympathetic)",
			N_("a follow-on error: resolve the errors logged with it first; alone, "
			   "report it")},
    [XB_UNUSED] = {"N/A", N_("not used on Ampere and newer GPUs")},
};

const char *xid_bucket_name(enum xid_bucket b)
{
	return b < XB_COUNT ? buckets[b].name : "";
}

const char *xid_bucket_action(enum xid_bucket b)
{
	return b < XB_COUNT ? buckets[b].action : "";
}

#define DMESG                                                                                      \
	{                                                                                          \
		"dmesg -T | grep -iE 'xid|nvrm'", N_("the XIDs logged just before and after it")   \
	}
#define DOCTOR                                                                                     \
	{                                                                                          \
		"gpuscope doctor", N_("driver, ECC, remapped rows, PCIe, clocks in one pass")      \
	}
#define SANITIZER                                                                                  \
	{                                                                                          \
		"compute-sanitizer --tool memcheck ./app",                                         \
		    N_("the kernel and source line that made the bad access")                      \
	}
#define BUGREPORT                                                                                  \
	{                                                                                          \
		"sudo nvidia-bug-report.sh", N_("the log bundle support asks for")                 \
	}
#define ECC_Q                                                                                      \
	{                                                                                          \
		"nvidia-smi -q -d ECC,ROW_REMAPPER", N_("ECC counters and remapped rows")          \
	}
#define NVLINK_Q                                                                                   \
	{                                                                                          \
		"nvidia-smi nvlink -s; nvidia-smi nvlink -e", N_("link state and error counters")  \
	}
#define DCGM_DIAG                                                                                  \
	{                                                                                          \
		"dcgmi diag -r 3", N_("DCGM's hardware diagnostics on the GPU")                    \
	}

const struct cat_text xid_t_unused = {
    N_("not used on Ampere and newer GPUs"),
    N_("NVIDIA lists this code as Unused: it is deprecated, or logged only by V100 and older "
       "GPUs"),
    {N_("an old GPU (Volta or earlier) or an old driver"), NULL},
    {DMESG, {"nvidia-smi -q | grep -i 'product name'", N_("which GPU logged it")}},
    {N_("look the code up in NVIDIA's archived catalogue for older GPUs "
	"(docs.nvidia.com/deploy/xid-errors/archive)"),
     NULL},
};

const struct cat_text xid_t_stopped = {
    N_("GPU stopped processing"),
    N_("a channel of the GPU stopped making progress and the driver timed it out"),
    {N_("a hung or very long kernel"), N_("a driver bug"), N_("a hardware fault"), NULL},
    {DMESG, DOCTOR, {"nvidia-smi", N_("whether the GPU still answers")}},
    {N_("restart the application"), N_("if it repeats with other programs: reset the GPU"), NULL},
};

const struct cat_text xid_t_app_stopped = {
    N_("application fault: the GPU stopped the offending channel"),
    N_("the application hit a software-induced fault and was terminated; the GPU stays "
       "healthy"),
    {N_("an application error (illegal access, assert, a killed context)"), NULL},
    {DMESG, {"ps -p PID -o pid,cmd", N_("the process named by the pid in the line")}},
    {N_("fix the application; the GPU needs nothing"), NULL},
};

const struct cat_text xid_t_pushbuffer = {
    N_("invalid or corrupted push buffer"),
    N_("the command stream the driver sent to the GPU was invalid or arrived corrupted"),
    {N_("the application passed bad data or used the GPU wrongly"),
     N_("PCIe transfer errors (a bad link, riser or slot)"), N_("a driver bug"),
     N_("system memory corruption"), NULL},
    {DMESG,
     {"sudo dmesg | grep -iE 'aer|pcie bus error'", N_("PCIe errors reported by the host")},
     {"nvidia-smi -q -d PCIE", N_("link generation, width and the replay counter")},
     DOCTOR},
    {N_("restart the application"), N_("update the driver"),
     N_("reseat the card; test the system memory"), NULL},
};

const struct cat_text xid_t_gr_exception = {
    N_("graphics engine exception (usually an application fault)"),
    N_("a kernel faulted in the compute/graphics engine: mostly an out-of-bounds access, "
       "sometimes an illegal instruction or register"),
    {N_("an application bug: an index past the end of an array, a bad pointer"),
     N_("rarely a driver or hardware fault (then it repeats on the same GPU across programs)"),
     NULL},
    {SANITIZER,
     {"CUDA_LAUNCH_BLOCKING=1 python train.py", N_("the launch that really failed")},
     {"CUDA_DEVICE_WAITS_ON_EXCEPTION=1 ./app", N_("stops there so cuda-gdb can attach")},
     DMESG},
    {N_("fix the out-of-bounds access the sanitizer names"),
     N_("if it repeats on one GPU with known-good programs: run DCGM diagnostics"), NULL},
};

const struct cat_text xid_t_mmu = {
    N_("GPU memory page fault (illegal address)"),
    N_("the GPU's MMU reported an access to an address that is not mapped"),
    {N_("an application illegal memory access (use after free, a wrong pointer or size)"),
     N_("less often a driver bug"),
     N_("rarely hardware (then it repeats on the same GPU, whatever runs)"), NULL},
    {SANITIZER,
     {"CUDA_LAUNCH_BLOCKING=1 python train.py", N_("the launch that really failed")},
     DMESG,
     DCGM_DIAG},
    {N_("fix the access the sanitizer names"),
     N_("repeated faults on one GPU only: run DCGM diagnostics"), NULL},
};

const struct cat_text xid_t_fake = {
    N_("injected test error"),
    N_("an error injected on purpose from user space (a test), not a real fault"),
    {N_("an error-injection test"), NULL},
    {DMESG},
    {N_("nothing, unless nobody meant to inject it"), NULL},
};

const struct cat_text xid_t_firmware = {
    N_("driver firmware error"),
    N_("the GPU's front-end firmware reported an unimplemented method or a watchdog timeout"),
    {N_("a driver/firmware mismatch or bug"), N_("an application sending an unsupported method"),
     NULL},
    {DMESG, {"cat /proc/driver/nvidia/version", N_("the driver version")}, BUGREPORT},
    {N_("update the driver"), N_("report it with nvidia-bug-report.sh if it repeats"), NULL},
};

const struct cat_text xid_t_ce = {
    N_("copy engine exception"),
    N_("a copy engine (the DMA unit behind cudaMemcpy) hit an error during a transfer"),
    {N_("an invalid copy (a freed or wrong buffer)"), N_("PCIe or NVLink transfer errors"),
     N_("a hardware fault of the copy engine"), NULL},
    {DMESG, {"nvidia-smi -q -d PCIE", N_("link width and replay counter")}, DOCTOR, BUGREPORT},
    {N_("restart the application"), N_("if it repeats: contact support"), NULL},
};

const struct cat_text xid_t_ctxsw = {
    N_("graphics engine fault during a context switch"),
    N_("the engine faulted while switching between contexts (processes)"),
    {N_("a driver bug"), N_("several processes sharing the GPU hitting an error"), NULL},
    {DMESG, {"nvidia-smi", N_("the processes sharing the GPU")}},
    {N_("no action unless it repeats; then update the driver and contact support"), NULL},
};

const struct cat_text xid_t_preempt = {
    N_("preemptive cleanup after an earlier error"),
    N_("the driver tore down a GPU application: it aborted (Ctrl-C, kill, a GPU reset) or an "
       "earlier error (often a double-bit ECC error) took it down"),
    {N_("the application was stopped by the user or the system"),
     N_("an earlier XID (48, 94, 95 ...) on the same GPU"), NULL},
    {DMESG, ECC_Q},
    {N_("on its own no action (NVSwitch systems: restart the fabric manager)"),
     N_("otherwise act on the XID logged before it"), NULL},
};

const struct cat_text xid_t_timeout = {
    N_("GPU timeout: the GPU stopped processing"),
    N_("the GPU did not finish the work in time and the driver gave up on it"),
    {N_("a hung kernel or a GPU hang"), N_("a driver bug"), N_("a hardware fault"), NULL},
    {DMESG, DOCTOR, {"nvidia-smi", N_("whether the GPU still answers")}},
    {N_("drain the GPU and reset it"), N_("if it repeats: contact support"), NULL},
};

const struct cat_text xid_t_dbe = {
    N_("double-bit (uncorrectable) ECC error"),
    N_("the GPU found an uncorrectable error in its memory (framebuffer) or an SRAM; the "
       "application was told; a GPU reset or reboot clears it"),
    {N_("a failing GPU memory cell or SRAM"), N_("rarely: heat or power problems"), NULL},
    {ECC_Q, DMESG, DOCTOR, DCGM_DIAG},
    {N_("drain and reset the GPU so the page is retired / the row is remapped"),
     N_("an SRAM error over NVIDIA's threshold, or repeats: run field diagnostics, RMA"), NULL},
};

const struct cat_text xid_t_auxpower = {
    N_("auxiliary power is not connected to the GPU board"),
    N_("the board runs without its auxiliary power cable(s) and lowers its clocks"),
    {N_("a missing or loose PCIe power cable"), N_("a weak power supply"), NULL},
    {{"nvidia-smi -q -d POWER", N_("power draw and limits")}, DMESG},
    {N_("connect and seat every power cable of the card"), NULL},
};

const struct cat_text xid_t_engine = {
    N_("video/JPEG/optical-flow engine exception"),
    N_("one of the GPU's media engines (NVDEC, NVENC, NVJPG, OFA, SEC2) hit an error"),
    {N_("the decoding/encoding application fed it bad data"), N_("a driver bug"),
     N_("rarely a hardware fault"), NULL},
    {DMESG, {"nvidia-smi -q -d UTILIZATION", N_("encoder/decoder use")}},
    {N_("restart the application"), N_("update the driver if it repeats"), NULL},
};

const struct cat_text xid_t_uc_halt = {
    N_("internal micro-controller halt"),
    N_("one of the GPU's internal micro-controllers (PMU, SEC2) halted"),
    {N_("a firmware or driver fault"), N_("overheating or power problems"), NULL},
    {DMESG, {"nvidia-smi -q -d TEMPERATURE,POWER", N_("temperature and power")}, BUGREPORT},
    {N_("reset the GPU"), N_("update the driver; contact support if it repeats"), NULL},
};

const struct cat_text xid_t_remap_event = {
    N_("GPU memory row remapping / page retirement event"),
    N_("the GPU handled memory errors and recorded a remapped row (Ampere and newer) or a "
       "retired page; a pending remap takes effect at the next GPU reset"),
    {N_("correctable or uncorrectable memory errors that the hardware handled"), NULL},
    {ECC_Q, DOCTOR},
    {N_("reset the GPU when it is idle if a remap is pending"), NULL},
};

const struct cat_text xid_t_remap_fail = {
    N_("GPU memory row remapping / page retirement failure"),
    N_("the GPU could not record a remap or retirement: memory errors beyond what it can "
       "repair"),
    {N_("failing GPU memory (no spare rows left)"), NULL},
    {ECC_Q, DOCTOR},
    {N_("drain and reset the GPU"), N_("contact the vendor: an RMA candidate"), NULL},
};

const struct cat_text xid_t_drv_access = {
    N_("illegal access by the driver"),
    N_("the GPU front end saw a register access or verification violation by the driver"),
    {N_("a driver bug"), N_("rarely the application"), NULL},
    {DMESG, BUGREPORT},
    {N_("no action unless it repeats; then update the driver and report it"), NULL},
};

const struct cat_text xid_t_class = {
    N_("graphics engine class error"),
    N_("an illegal class or method was sent to the engine"),
    {N_("the application misused the GPU (a bad method)"), N_("a driver bug"), NULL},
    {DMESG, SANITIZER},
    {N_("restart the application; check it"), N_("update the driver"), NULL},
};

const struct cat_text xid_t_nvlink = {
    N_("NVLink error"),
    N_("the GPU saw a problem on an NVLink connection to another GPU or an NVSwitch; a GPU "
       "reset or reboot clears it"),
    {N_("the link itself (bridge, cable, connector)"),
     N_("the device at the other end failed (its own XIDs)"), N_("an NVSwitch problem"), NULL},
    {NVLINK_Q,
     {"nvidia-smi topo -m", N_("which GPUs and switches are linked")},
     DMESG,
     {"systemctl status nvidia-fabricmanager", N_("the fabric manager on NVSwitch systems")}},
    {N_("reset the GPU or reboot"), N_("if it repeats: reseat bridges/cables, contact support"),
     NULL},
};

const struct cat_text xid_t_vgpu = {
    N_("vGPU start error"),
    N_("a virtual GPU failed to start"),
    {N_("the guest driver does not match the host's vGPU manager"),
     N_("the vGPU type does not suit the guest OS or the GPU"), NULL},
    {DMESG, {"nvidia-smi vgpu -q", N_("vGPU types and state on the host")}},
    {N_("install matching host and guest drivers"), N_("pick a supported vGPU type"), NULL},
};

const struct cat_text xid_t_bus = {
    N_("GPU has fallen off the bus"),
    N_("the driver could not reach the GPU over PCI Express: the link went down and the GPU "
       "is lost until the machine restarts"),
    {N_("power delivery (PSU, cables, transient overload; laptops on battery)"), N_("overheating"),
     N_("the PCIe link: slot, riser, seating"), N_("a failing GPU"),
     N_("a driver or power-management problem"), NULL},
    {{"dmesg -T | grep -iE 'xid|nvrm|aer|pcie'", N_("the XID and the PCIe errors around it")},
     {"nvidia-smi -q -d POWER,TEMPERATURE", N_("power draw and temperature before the crash")},
     {"sudo lspci -vvv -s BUS | grep -E 'LnkCap|LnkSta'", N_("link speed/width vs capability")},
     {"sudo nvidia-smi -lgc 700 (undo: sudo nvidia-smi -rgc)",
      N_("lower clocks: if the crashes stop, power or cooling is the cause")},
     {"nvidia-smi -pm 1 (or nvidia-persistenced)", N_("keeps the driver loaded between jobs")}},
    {N_("restart the machine"), N_("check the power supply and cables; reseat the card"),
     N_("laptop: plug in the charger and choose the high-performance power mode"),
     N_("A/B test an older driver if it started after an upgrade"), NULL},
};

const struct cat_text xid_t_crc = {
    N_("corrupted data sent to the GPU"),
    N_("a push buffer arrived with a CRC mismatch: data was corrupted on its way to the GPU"),
    {N_("PCIe transfer errors"), N_("system memory corruption"), N_("the application"), NULL},
    {{"nvidia-smi -q -d PCIE", N_("link state and the replay counter")}, DMESG},
    {N_("restart the application"), N_("reseat the card; test system memory"), NULL},
};

const struct cat_text xid_t_sbe = {
    N_("high single-bit ECC error rate"),
    N_("the GPU corrected an unusually high number of single-bit memory errors"),
    {N_("GPU memory that is wearing out"), NULL},
    {ECC_Q, DOCTOR},
    {N_("watch the ECC counters and remapped rows; plan a replacement if the rate stays high"),
     NULL},
};

const struct cat_text xid_t_inforom = {
    N_("InfoROM wear limit reached"),
    N_("the driver could not update the InfoROM because its provisioned wear limit was hit"),
    {N_("InfoROM wear protection set on purpose with nvflash"), NULL},
    {DMESG},
    {N_("clear the limit with nvflash --elsessionclear; report it if that does not help"), NULL},
};

const struct cat_text xid_t_contained = {
    N_("contained memory error"),
    N_("an uncorrectable memory error was contained: only the application that hit it was "
       "stopped; the others keep running"),
    {N_("an ECC memory error (XID 45 is logged with it)"), NULL},
    {ECC_Q, DMESG},
    {N_("restart the application"), N_("reset the GPU when convenient"), NULL},
};

const struct cat_text xid_t_uncontained = {
    N_("uncontained memory error"),
    N_("an uncorrectable memory error could not be contained: every application on the GPU "
       "is affected"),
    {N_("an ECC memory error"), NULL},
    {ECC_Q, DMESG},
    {N_("reset the GPU before restarting any application"), N_("replace it if it repeats"), NULL},
};

const struct cat_text xid_t_smbpbi = {
    N_("SMBPBI test message"),
    N_("a test message of the out-of-band management interface (SMBPBI)"),
    {N_("a management controller test"), NULL},
    {DMESG},
    {N_("nothing"), NULL},
};

const struct cat_text xid_t_ctxsw_timeout = {
    N_("context switch timeout"),
    N_("a context switch between processes did not complete in time"),
    {N_("a hung kernel that cannot be preempted"), N_("a driver or hardware fault"), NULL},
    {DMESG, {"nvidia-smi", N_("processes on the GPU")}},
    {N_("reset the GPU"), N_("contact support if it repeats"), NULL},
};

const struct cat_text xid_t_secfault = {
    N_("security fault"),
    N_("the GPU raised a security fault: uncommon except with a hardware failure"),
    {N_("a hardware failure or a recent hardware change"), NULL},
    {DMESG, BUGREPORT},
    {N_("revert recent hardware changes and cold-reset the machine"),
     N_("contact the hardware vendor if it stays"), NULL},
};

const struct cat_text xid_t_gsp = {
    N_("GSP error or RPC timeout"),
    N_("the GPU System Processor (the firmware core that runs part of the driver) failed or "
       "did not answer an RPC in time"),
    {N_("a GSP firmware or driver bug"), N_("the GPU is hung"), NULL},
    {DMESG, {"cat /proc/driver/nvidia/version", N_("the driver version")}, BUGREPORT},
    {N_("reset the GPU or power-cycle the machine"),
     N_("update the driver; follow NVIDIA's GPU debug guidelines if it repeats"), NULL},
};

const struct cat_text xid_t_c2c = {
    N_("C2C link error (Grace CPU to GPU)"),
    N_("the driver saw errors on the chip-to-chip NVLink to the Grace CPU"),
    {N_("link errors that the system corrected"), NULL},
    {DMESG},
    {N_("no immediate action; reset the GPU at a service window to retrain the link"), NULL},
};

const struct cat_text xid_t_linktrain = {
    N_("link training failed"),
    N_("a link (NVLink) failed to train"),
    {N_("signal integrity: cables, seating, temperature"), N_("the peer device"), NULL},
    {NVLINK_Q, DMESG},
    {N_("reset the GPU"), N_("check the link's cables and seating"), NULL},
};

const struct cat_text xid_t_p2p = {
    N_("NVLink privilege error (illegal peer-to-peer access)"),
    N_("the remote MMU reported an illegal access over NVLink peer-to-peer"),
    {N_("an application bug in peer-to-peer accesses"), N_("rarely a driver or hardware bug"),
     NULL},
    {SANITIZER, DMESG},
    {N_("fix the peer-to-peer access the sanitizer names"), NULL},
};

const struct cat_text xid_t_unrecovered = {
    N_("unrecovered ECC error"),
    N_("uncorrectable memory errors came in a way that stopped the driver from retiring the "
       "page or remapping the row"),
    {N_("failing GPU memory"), NULL},
    {ECC_Q, DOCTOR},
    {N_("reset the GPU"), N_("contact the vendor if it repeats"), NULL},
};

const struct cat_text xid_t_fastpath = {
    N_("CUDA fast path error"),
    N_("an error in CUDA's fast submission path"),
    {N_("a driver bug"), N_("the application"), NULL},
    {DMESG, BUGREPORT},
    {N_("no immediate action; report it if it repeats"), NULL},
};

const struct cat_text xid_t_init = {
    N_("GPU initialization error"),
    N_("the GPU failed to initialise"),
    {N_("hardware, firmware or power"), N_("a driver problem"), NULL},
    {DMESG, {"nvidia-smi -q -d POWER", N_("power state")}, BUGREPORT},
    {N_("reset the GPU or reboot"), N_("check power and seating; contact support"), NULL},
};

const struct cat_text xid_t_nvlink5 = {
    N_("NVLink 5 unit error"),
    N_("a unit of the NVLink 5 fabric (Blackwell) reported an error; the message's intrInfo "
       "and errorStatus say whether it is fatal"),
    {N_("the link, its cables or the peer (switch or GPU)"), N_("firmware or software"), NULL},
    {NVLINK_Q, DMESG},
    {N_("decode the message with NVIDIA's XID 144-150 table; reset the GPU when fatal"), NULL},
};

const struct cat_text xid_t_keyrot = {
    N_("key rotation error (confidential computing)"),
    N_("the GPU failed to rotate its encryption keys in confidential-computing mode"),
    {N_("a confidential-computing software or firmware problem"), NULL},
    {DMESG},
    {N_("restart the virtual machine that owns the GPU"), NULL},
};

const struct cat_text xid_t_dla = {
    N_("DLA error (deep learning accelerator)"),
    N_("an error of a DLA engine, found on Jetson/DRIVE SoCs, not on data-center GPUs"),
    {N_("the DLA workload or its driver"), NULL},
    {DMESG},
    {N_("no action on data-center GPUs; check the DLA workload"), NULL},
};

const struct cat_text xid_t_recovery = {
    N_("GPU recovery action changed"),
    N_("a summary: it names the recovery the XIDs logged with it need (None, Drain P2P, Drain "
       "and Reset, GPU Reset Required, Node Reboot Required)"),
    {N_("another XID on the same GPU"), NULL},
    {DMESG, DOCTOR},
    {N_("do what the message names; the XIDs beside it say why"), NULL},
};

const struct cat_text xid_t_swdown = {
    N_("NVLink link taken down by software"),
    N_("a link was brought down intentionally (including sleep transitions)"),
    {N_("software or an administrator"), NULL},
    {NVLINK_Q, DMESG},
    {N_("reset the GPU; find out who took the link down if nobody meant to"), NULL},
};

const struct cat_text xid_t_res_event = {
    N_("resource retirement event"),
    N_("the GPU retired a faulty internal resource to keep running"),
    {N_("a hardware fault that was repaired by retirement"), NULL},
    {DMESG, DOCTOR},
    {N_("reset the GPU so the retirement takes effect"), NULL},
};

const struct cat_text xid_t_res_fail = {
    N_("resource retirement failure"),
    N_("no repair was possible for lack of spare resources; work may still run but the same "
       "XID may come back"),
    {N_("hardware wear beyond repair"), NULL},
    {DMESG, DOCTOR},
    {N_("contact support; plan a replacement"), NULL},
};

const struct cat_text xid_t_fatal_timeout = {
    N_("GPU fatal timeout"),
    N_("the GPU stopped responding in a way the driver treats as fatal"),
    {N_("a GPU hang"), N_("a hardware or firmware fault"), NULL},
    {DMESG, BUGREPORT},
    {N_("reset the GPU"), N_("contact support if it repeats"), NULL},
};

const struct cat_text xid_t_chi = {
    N_("CHI non-data error (C2C)"),
    N_("an error on the coherent chip-to-chip interface, usually with other errors"),
    {N_("a follow-on of another error on a C2C-linked GPU"), NULL},
    {DMESG},
    {N_("reset the GPU if UVM or vGPU is in use; resolve the other errors first"), NULL},
};

const struct cat_text xid_t_chan_event = {
    N_("channel retirement event or failure"),
    N_("the driver retired (or failed to retire) a GPU channel after errors"),
    {N_("an application or driver fault on that channel"), NULL},
    {DMESG},
    {N_("investigate the application named by the pid; no reset is needed"), NULL},
};

const struct cat_text xid_t_pshc = {
    N_("power smoothing circuitry state changed"),
    N_("the GPU's power smoothing hardware was re-engaged or disengaged, or its lifetime is "
       "running out; without it the GPU's power draw swings more"),
    {N_("thermal events or a timeout disengaged it"), N_("the circuitry is wearing out"), NULL},
    {{"nvidia-smi -q -d POWER", N_("power draw and limits")}, DMESG},
    {N_("disengaged: resolve the thermal events, or reload the driver after a timeout"),
     N_("low or zero lifetime: replace the GPU if the power swings are not acceptable"), NULL},
};

const struct cat_text xid_t_cc = {
    N_("NVLink confidential-computing error"),
    N_("NVLink saw traffic or an interrupt that confidential-computing mode does not allow"),
    {N_("the link was used before it was set up for encrypted traffic"), NULL},
    {DMESG},
    {N_("applies to confidential-computing mode only: check its setup"), NULL},
};

const struct cat_text xid_t_pcie_fatal = {
    N_("PCIe fatal timeout"),
    N_("a PCIe transaction to the GPU timed out fatally"),
    {N_("the PCIe link: slot, riser, cable"), N_("a failing GPU"), NULL},
    {{"sudo dmesg | grep -iE 'aer|pcie'", N_("PCIe errors from the host")}, DOCTOR},
    {N_("restart the machine; reseat the card"), N_("contact support if it repeats"), NULL},
};

const struct cat_text xid_t_wpr = {
    N_("errors in the write-protected region (reduced memory)"),
    N_("memory errors were found in the write-protected region; seen only with ECC disabled"),
    {N_("ECC is disabled, so rows cannot be remapped"), NULL},
    {ECC_Q},
    {N_("enable ECC (nvidia-smi -e 1, then reset) so rows can be remapped"), NULL},
};

const struct cat_text xid_t_dbe_detail = {
    N_("uncorrectable DRAM/SRAM error detail"),
    N_("logged with XID 48: it says whether the uncorrectable error was in DRAM or an SRAM"),
    {N_("the same fault as the XID 48 beside it"), NULL},
    {ECC_Q, DMESG},
    {N_("follow XID 48's guidance"), NULL},
};
