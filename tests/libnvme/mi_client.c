/* A libnvme-mi program (libnvme 1.3) against `offload mctpd --nvme-mi`, run with the
 * LD_PRELOAD library: the MI command set (Read NVMe-MI Data Structure of every type, the
 * Subsystem Health Status Poll with Clear Status, Configuration Get/Set) and Admin commands
 * (Identify, SMART / Health, Get Features). Prints one line per call: its return value
 * (libnvme's status: 0, an NVMe status, or an MI status with type 1 << 27) and what it read. */
#include <stdio.h>
#include <string.h>
#include <libnvme-mi.h>

int main(void)
{
	nvme_root_t root = nvme_mi_create_root(stderr, LOG_WARNING);
	nvme_mi_ep_t ep = nvme_mi_open_mctp(root, 1, 9);
	struct nvme_mi_read_nvm_ss_info ss;
	struct nvme_mi_read_port_info pi;
	struct nvme_ctrl_list list;
	struct nvme_mi_read_ctrl_info ci;
	struct nvme_mi_nvm_ss_health_status h;
	enum nvme_mi_config_smbus_freq f;
	struct nvme_id_ctrl id;
	struct nvme_smart_log smart;
	nvme_mi_ctrl_t ctrl;
	__u16 mtu;
	__u32 result = 0;
	int rc;

	if (!ep) {
		perror("nvme_mi_open_mctp");
		return 1;
	}
	rc = nvme_mi_mi_read_mi_data_subsys(ep, &ss);
	printf("subsys %d nump %u mjr %u mnr %u\n", rc, ss.nump, ss.mjr, ss.mnr);
	rc = nvme_mi_mi_read_mi_data_port(ep, 0, &pi);
	printf("port %d portt %u mmctptus %u mme_addr %#x mme_freq %u\n", rc, pi.portt,
	       pi.mmctptus, pi.smb.mme_addr, pi.smb.mme_freq);
	rc = nvme_mi_mi_read_mi_data_ctrl_list(ep, 0, &list);
	printf("ctrl-list %d num %u\n", rc, list.num);
	rc = nvme_mi_mi_read_mi_data_ctrl(ep, 1, &ci);
	printf("ctrl-info %d pri %u vid %#x\n", rc, ci.pri, ci.vid);
	rc = nvme_mi_mi_read_mi_data_ctrl(ep, 9, &ci);
	printf("ctrl-info-9 %#x\n", rc);
	rc = nvme_mi_mi_subsystem_health_status_poll(ep, true, &h);
	printf("health %d ctemp %u pdlu %u sw %#x ccs %#x\n", rc, h.ctemp, h.pdlu, h.sw, h.ccs);
	rc = nvme_mi_mi_config_get_smbus_freq(ep, 0, &f);
	printf("smbus %d freq %d\n", rc, f);
	rc = nvme_mi_mi_config_set_smbus_freq(ep, 0, NVME_MI_CONFIG_SMBUS_FREQ_400kHz);
	printf("set-smbus %d\n", rc);
	rc = nvme_mi_mi_config_get_smbus_freq(ep, 0, &f);
	printf("smbus %d freq %d\n", rc, f);
	rc = nvme_mi_mi_config_set_smbus_freq(ep, 0, NVME_MI_CONFIG_SMBUS_FREQ_1MHz);
	printf("set-smbus-1mhz %#x\n", rc);
	rc = nvme_mi_mi_config_get_mctp_mtu(ep, 0, &mtu);
	printf("mtu %d %u\n", rc, mtu);
	rc = nvme_mi_mi_config_set_mctp_mtu(ep, 0, 100);
	printf("set-mtu-100 %#x\n", rc);
	rc = nvme_mi_mi_config_set_health_status_change(ep, 0xffffffff);
	printf("set-hsc %d\n", rc);

	ctrl = nvme_mi_init_ctrl(ep, 1);
	rc = nvme_mi_admin_identify_ctrl(ctrl, &id);
	printf("id-ctrl %d cntlid %u nn %u mn %.21s\n", rc, id.cntlid, id.nn, id.mn);
	rc = nvme_mi_admin_get_log_smart(ctrl, NVME_NSID_ALL, false, &smart);
	printf("smart %d temp %u\n", rc, smart.temperature[0] | smart.temperature[1] << 8);
	rc = nvme_mi_admin_get_features_data(ctrl, NVME_FEAT_FID_NUM_QUEUES, 0, 0, NULL, &result);
	printf("features %d result %#x\n", rc, result);
	nvme_mi_close(ep);
	nvme_mi_free_root(root);
	return 0;
}
