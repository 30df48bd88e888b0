// The kernel's HDMI-CEC interface (linux/cec.h): its structures import into Swift, its ioctl
// numbers (function-like macros) do not, so each ioctl is one small function here.
#ifndef CLINUX_CEC_H
#define CLINUX_CEC_H
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <linux/cec.h>

/// The adapter's driver, name and capabilities; 0 or -1 with errno.
static inline int CLinux_cec_caps(int fd, struct cec_caps *caps) { return ioctl(fd, CEC_ADAP_G_CAPS, caps); }
/// The physical address (0xffff: none now); 0 or -1 with errno.
static inline int CLinux_cec_phys_addr(int fd, uint16_t *addr) { return ioctl(fd, CEC_ADAP_G_PHYS_ADDR, addr); }
/// Sets the physical address of an adapter that leaves it to software (CEC_CAP_PHYS_ADDR).
static inline int CLinux_cec_set_phys_addr(int fd, uint16_t *addr) { return ioctl(fd, CEC_ADAP_S_PHYS_ADDR, addr); }
/// The logical addresses claimed; 0 or -1 with errno.
static inline int CLinux_cec_log_addrs(int fd, struct cec_log_addrs *las) { return ioctl(fd, CEC_ADAP_G_LOG_ADDRS, las); }
/// The DRM connector the adapter belongs to (CEC_CAP_CONNECTOR_INFO); 0 or -1 with errno.
static inline int CLinux_cec_connector(int fd, struct cec_connector_info *info) {
    return ioctl(fd, CEC_ADAP_G_CONNECTOR_INFO, info);
}
/// Claims one Playback logical address with `osd_name` (CEC 1.4, no vendor id), after clearing
/// any claimed before (EBUSY otherwise). On a non-blocking descriptor the claim goes on in the
/// background and a state-change event tells its outcome. 0 or -1 with errno.
static inline int CLinux_cec_claim_playback(int fd, const char *osd_name) {
    struct cec_log_addrs las;
    memset(&las, 0, sizeof las);
    if (ioctl(fd, CEC_ADAP_S_LOG_ADDRS, &las) != 0) return -1;
    memset(&las, 0, sizeof las);
    las.cec_version = CEC_OP_CEC_VERSION_1_4;
    las.vendor_id = CEC_VENDOR_ID_NONE;
    las.num_log_addrs = 1;
    las.log_addr_type[0] = CEC_LOG_ADDR_TYPE_PLAYBACK;
    las.primary_device_type[0] = CEC_OP_PRIM_DEVTYPE_PLAYBACK;
    las.all_device_types[0] = CEC_OP_ALL_DEVTYPE_PLAYBACK;
    strncpy(las.osd_name, osd_name, sizeof las.osd_name - 1);
    return ioctl(fd, CEC_ADAP_S_LOG_ADDRS, &las);
}
/// Initiator and follower: the kiosk sends, and receives what the kernel does not answer itself.
static inline int CLinux_cec_set_follower(int fd) {
    uint32_t mode = CEC_MODE_INITIATOR | CEC_MODE_FOLLOWER;
    return ioctl(fd, CEC_S_MODE, &mode);
}
/// Queues a frame (`len` bytes); on a non-blocking descriptor the result comes back through
/// CLinux_cec_receive with the same sequence number. Returns the sequence (>0) or -1 with errno.
static inline int64_t CLinux_cec_transmit(int fd, const uint8_t *bytes, uint32_t len) {
    struct cec_msg msg;
    memset(&msg, 0, sizeof msg);
    if (len < 1 || len > CEC_MAX_MSG_SIZE) { errno = EINVAL; return -1; }
    memcpy(msg.msg, bytes, len);
    msg.len = len;
    if (ioctl(fd, CEC_TRANSMIT, &msg) != 0) return -1;
    return (int64_t)msg.sequence;
}
/// Sends a frame and waits up to `timeout_ms` for the reply with opcode `reply` (a blocking
/// descriptor; `bubble-kiosk devices`). The reply's bytes go to `out` (16 bytes); returns its
/// length, 0 when none came, or -1 with errno when the frame was not sent.
static inline int CLinux_cec_ask(int fd, const uint8_t *bytes, uint32_t len, uint8_t reply, uint32_t timeout_ms,
                                 uint8_t *out) {
    struct cec_msg msg;
    memset(&msg, 0, sizeof msg);
    if (len < 1 || len > CEC_MAX_MSG_SIZE) { errno = EINVAL; return -1; }
    memcpy(msg.msg, bytes, len);
    msg.len = len;
    msg.reply = reply;
    msg.timeout = timeout_ms;
    if (ioctl(fd, CEC_TRANSMIT, &msg) != 0) return -1;
    if (!(msg.tx_status & CEC_TX_STATUS_OK) || !(msg.rx_status & CEC_RX_STATUS_OK)) return 0;
    memcpy(out, msg.msg, CEC_MAX_MSG_SIZE);
    return (int)msg.len;
}
/// One message from the adapter's queue: a frame received (`tx_status` 0) or the result of one
/// sent (`sequence` set). `bytes` gets 16 bytes. Returns the length, or -1 with errno (EAGAIN:
/// none waiting).
static inline int CLinux_cec_receive(int fd, uint8_t *bytes, uint32_t *sequence, uint8_t *tx_status) {
    struct cec_msg msg;
    memset(&msg, 0, sizeof msg);
    if (ioctl(fd, CEC_RECEIVE, &msg) != 0) return -1;
    memcpy(bytes, msg.msg, CEC_MAX_MSG_SIZE);
    *sequence = msg.sequence;
    *tx_status = msg.tx_status;
    return (int)msg.len;
}
/// One event (CEC_EVENT_STATE_CHANGE: the addresses; CEC_EVENT_LOST_MSGS); returns the event's
/// kind, or -1 with errno (EAGAIN: none waiting).
static inline int CLinux_cec_event(int fd, uint16_t *phys_addr, uint16_t *log_addr_mask) {
    struct cec_event ev;
    memset(&ev, 0, sizeof ev);
    if (ioctl(fd, CEC_DQEVENT, &ev) != 0) return -1;
    if (ev.event == CEC_EVENT_STATE_CHANGE) {
        *phys_addr = ev.state_change.phys_addr;
        *log_addr_mask = ev.state_change.log_addr_mask;
    }
    return (int)ev.event;
}
static const uint32_t CLinux_CEC_CAP_LOG_ADDRS = CEC_CAP_LOG_ADDRS;
static const uint32_t CLinux_CEC_CAP_PHYS_ADDR = CEC_CAP_PHYS_ADDR;
static const uint32_t CLinux_CEC_CAP_CONNECTOR_INFO = CEC_CAP_CONNECTOR_INFO;
static const uint32_t CLinux_CEC_CONNECTOR_TYPE_DRM = CEC_CONNECTOR_TYPE_DRM;
static const int CLinux_CEC_EVENT_STATE_CHANGE = CEC_EVENT_STATE_CHANGE;
static const int CLinux_CEC_EVENT_LOST_MSGS = CEC_EVENT_LOST_MSGS;
static const uint8_t CLinux_CEC_TX_STATUS_OK = CEC_TX_STATUS_OK;
static const uint8_t CLinux_CEC_TX_STATUS_NACK = CEC_TX_STATUS_NACK;
#endif
