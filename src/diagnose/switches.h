/*
 * switches.h - PyTorch debugging and tuning switches left on, named in the
 * findings whose time they cost (docs/causes.md rows 13, 18 and 20; the
 * readings are analyze/torchmodes.c's): autograd's anomaly detection and
 * DDP's search for unused parameters in the host-side findings (sync_stall,
 * host_overhead, launch_overhead), cuDNN's autotuning of every new shape in
 * recompilation.
 */
#ifndef GPUSCOPE_SWITCHES_H
#define GPUSCOPE_SWITCHES_H

struct analysis;
struct finding;

/* 1 when anomaly detection was on: TH_ANOMALY_MIN_NODES backward nodes or
 * more checked for NaN, TH_ANOMALY_NODE_SHARE of them or more, or its
 * frames in TH_ANOMALY_SAMPLE_SHARE of the host samples or more;
 * *sample_pct (may be NULL) the samples' share in percent, -1 without
 * samples. */
int sw_anomaly(const struct analysis *a, double *sample_pct);

/* When sw_anomaly: its evidence and the action that turns it off, in the
 * program's terms (Lightning's Trainer flag when Lightning runs it); 1 when
 * added. */
int adv_anomaly(struct finding *f, const struct analysis *a);

/* 1 when DistributedDataParallel searches for unused parameters after
 * every forward (find_unused_parameters=True) for TH_DDP_SEARCH_SHARE of
 * the time or more: the tails of its forward ranges (op events, at least
 * TH_DDP_MIN_FORWARDS) as a share of the window, or its _post_forward /
 * the reducer's walk in the feeding threads' host samples; *pct (may be
 * NULL) that share in percent. */
int sw_ddp_unused(const struct analysis *a, double *pct);

/* When sw_ddp_unused: its evidence and the action (find_unused_parameters=
 * False, or static_graph=True); 1 when added. */
int adv_ddp_unused(struct finding *f, const struct analysis *a);

/* 1 when torch.optim updates the parameters one tensor at a time (its
 * per-parameter path: foreach=False, or a type the foreach path refuses):
 * its steps' launches (op events: no multi-tensor op inside them) are
 * TH_OPTIM_LOOP_SHARE of the window's and TH_OPTIM_LOOP_LAUNCHES a step or
 * more, or its _single_tensor_* functions hold TH_OPTIM_LOOP_SHARE of the
 * feeding threads' samples; *pct (may be NULL) that share in percent. */
int sw_optim_loop(const struct analysis *a, double *pct);

/* When sw_optim_loop: its evidence and the action (foreach=True, or
 * fused=True); 1 when added. */
int adv_optim_loop(struct finding *f, const struct analysis *a);

/* 1 when cuDNN autotunes convolutions again after the run's first half:
 * TH_AUTOTUNE_LATE_MIN autotuning calls or more there (op events), or
 * cuDNN's find in the host samples of the window's second half with
 * TH_MIN_IMPACT_PCT of the span or more in all; *pct (may be NULL) their
 * share of the analysed window. */
int sw_autotuning(const struct analysis *a, double *pct);

/* recompilation's evidence and actions for it; 1 when added. */
int adv_autotuning(struct finding *f, const struct analysis *a);

#endif
