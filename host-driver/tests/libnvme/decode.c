/* Reads data structures the Rust model wrote and prints fields through libnvme 1.3's own
 * struct definitions (<nvme/types.h>), the ones nvme-cli decodes with: if an offset in the
 * Rust encoders were wrong, a field printed here would differ from what the test expects. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libnvme-mi.h>

static void *slurp(const char *dir, const char *name, size_t len)
{
	char path[4096];
	void *buf = calloc(1, len);
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "rb");
	if (!f || !buf || fread(buf, 1, len, f) != len) {
		fprintf(stderr, "reading %s\n", path);
		exit(1);
	}
	fclose(f);
	return buf;
}

int main(int argc, char **argv)
{
	struct nvme_id_ctrl *c = slurp(argv[1], "id-ctrl", sizeof(*c));
	struct nvme_id_ns *n = slurp(argv[1], "id-ns", sizeof(*n));
	struct nvme_smart_log *s = slurp(argv[1], "smart", sizeof(*s));
	struct nvme_error_log_page *e = slurp(argv[1], "error", sizeof(*e));
	struct nvme_firmware_slot *fw = slurp(argv[1], "fw", sizeof(*fw));
	struct nvme_mi_read_ctrl_info *ci = slurp(argv[1], "ctrl-info", sizeof(*ci));
	struct nvme_mi_read_port_info *pi = slurp(argv[1], "port-info", sizeof(*pi));
	struct nvme_mi_nvm_ss_health_status *h = slurp(argv[1], "health", sizeof(*h));
	struct nvme_mi_ctrl_health_status *ch = slurp(argv[1], "ctrl-health", sizeof(*ch));

	printf("vid %#x ssvid %#x sn %.20s mn %.40s fr %.8s cntlid %u ver %#x\n",
	       c->vid, c->ssvid, c->sn, c->mn, c->fr, c->cntlid, c->ver);
	printf("mec %u frmw %#x elpe %u npss %u wctemp %u cctemp %u nn %u sqes %#x subnqn %s\n",
	       c->mec, c->frmw, c->elpe, c->npss, c->wctemp, c->cctemp, c->nn, c->sqes, c->subnqn);
	printf("tnvmcap %llu\n", (unsigned long long)*(uint64_t *)c->tnvmcap);
	printf("nsze %llu ncap %llu nuse %llu lbads %u nmic %u\n",
	       (unsigned long long)n->nsze, (unsigned long long)n->ncap,
	       (unsigned long long)n->nuse, n->lbaf[0].ds, n->nmic);
	printf("cw %u temp %u spare %u thresh %u used %u poh %llu cycles %llu errs %llu sensor1 %u\n",
	       s->critical_warning, s->temperature[0] | s->temperature[1] << 8, s->avail_spare,
	       s->spare_thresh, s->percent_used,
	       (unsigned long long)*(uint64_t *)s->power_on_hours,
	       (unsigned long long)*(uint64_t *)s->power_cycles,
	       (unsigned long long)*(uint64_t *)s->num_err_log_entries, s->temp_sensor[0]);
	printf("error_count %llu status %#x pel %#x nsid %u\n",
	       (unsigned long long)e->error_count, e->status_field >> 1, e->parm_error_location, e->nsid);
	printf("afi %u frs1 %.8s frs2 %.8s\n", fw->afi, fw->frs[0], fw->frs[1]);
	printf("portid %u prii %u pri %u vid %#x did %#x ssvid %#x ssid %#x\n",
	       ci->portid, ci->prii, ci->pri, ci->vid, ci->did, ci->ssvid, ci->ssid);
	printf("portt %u mmctptus %u vpd %#x mvpd_freq %u mme %#x mme_freq %u\n",
	       pi->portt, pi->mmctptus, pi->smb.vpd_addr, pi->smb.mvpd_freq, pi->smb.mme_addr,
	       pi->smb.mme_freq);
	printf("nss %#x sw %#x ctemp %u pdlu %u ccs %#x\n", h->nss, h->sw, h->ctemp, h->pdlu, h->ccs);
	printf("ctlid %u csts %#x ctemp %u pdlu %u spare %u cwarn %#x\n",
	       ch->ctlid, ch->csts, ch->ctemp, ch->pdlu, ch->spare, ch->cwarn);
	return 0;
}
