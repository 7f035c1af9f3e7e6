/*
 * xid_texts.h - the texts of the XID catalogue, one per kind of XID
 * (xid_texts.c), shared by the rows in xid_catalogue.c. Private to those two.
 */
#ifndef GPUSCOPE_XID_TEXTS_H
#define GPUSCOPE_XID_TEXTS_H

#include "health/catalogue.h"

extern const struct cat_text xid_t_unused;
extern const struct cat_text xid_t_stopped;
extern const struct cat_text xid_t_app_stopped;
extern const struct cat_text xid_t_pushbuffer;
extern const struct cat_text xid_t_gr_exception;
extern const struct cat_text xid_t_mmu;
extern const struct cat_text xid_t_fake;
extern const struct cat_text xid_t_firmware;
extern const struct cat_text xid_t_ce;
extern const struct cat_text xid_t_ctxsw;
extern const struct cat_text xid_t_preempt;
extern const struct cat_text xid_t_timeout;
extern const struct cat_text xid_t_dbe;
extern const struct cat_text xid_t_auxpower;
extern const struct cat_text xid_t_engine;
extern const struct cat_text xid_t_uc_halt;
extern const struct cat_text xid_t_remap_event;
extern const struct cat_text xid_t_remap_fail;
extern const struct cat_text xid_t_drv_access;
extern const struct cat_text xid_t_class;
extern const struct cat_text xid_t_nvlink;
extern const struct cat_text xid_t_vgpu;
extern const struct cat_text xid_t_bus;
extern const struct cat_text xid_t_crc;
extern const struct cat_text xid_t_sbe;
extern const struct cat_text xid_t_inforom;
extern const struct cat_text xid_t_contained;
extern const struct cat_text xid_t_uncontained;
extern const struct cat_text xid_t_smbpbi;
extern const struct cat_text xid_t_ctxsw_timeout;
extern const struct cat_text xid_t_secfault;
extern const struct cat_text xid_t_gsp;
extern const struct cat_text xid_t_c2c;
extern const struct cat_text xid_t_linktrain;
extern const struct cat_text xid_t_p2p;
extern const struct cat_text xid_t_unrecovered;
extern const struct cat_text xid_t_fastpath;
extern const struct cat_text xid_t_init;
extern const struct cat_text xid_t_nvlink5;
extern const struct cat_text xid_t_keyrot;
extern const struct cat_text xid_t_dla;
extern const struct cat_text xid_t_recovery;
extern const struct cat_text xid_t_swdown;
extern const struct cat_text xid_t_res_event;
extern const struct cat_text xid_t_res_fail;
extern const struct cat_text xid_t_fatal_timeout;
extern const struct cat_text xid_t_chi;
extern const struct cat_text xid_t_chan_event;
extern const struct cat_text xid_t_pshc;
extern const struct cat_text xid_t_cc;
extern const struct cat_text xid_t_pcie_fatal;
extern const struct cat_text xid_t_wpr;
extern const struct cat_text xid_t_dbe_detail;

#endif
