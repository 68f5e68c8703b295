/* A usrsctp 0.9.5 peer for the FC-over-SCTP interoperability test (host-driver/tests/fc_usrsctp.rs).
 * SCTP over UDP (RFC 6951) on loopback, one-to-one socket.
 *
 *   peer server <bind-ip|any> <local-udp-port> <sctp-port>
 *     accepts one association, echoes every message on the stream it came on, until the peer
 *     shuts down.
 *   peer client <bind-ip|any> <local-udp-port> <remote-udp-port> <sctp-port> <messages-file>
 *     connects to 127.0.0.1, sends each message of the file (u16 stream, u32 length, octets,
 *     big-endian) and waits for its echo (compared octet for octet), then shuts down.
 *   peer bulk-server / bulk-client: the same as server/client but the client streams the file
 *     <repeat> times without waiting for echoes and the server only counts (throughput
 *     reference for benches).
 *
 * Prints one line per event on stdout: READY, COMM_UP, ECHO_OK <n>, ECHO_BAD <i>, RECV <n>,
 * SHUTDOWN_COMP, COMM_LOST, ABORT, CANT_START, DONE, FINISH_PENDING. Exit status 0 only when everything the
 * mode expects happened (messages intact, association ended by SHUTDOWN-COMPLETE). */
#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>
#include <usrsctp.h>

struct msg { uint16_t sid; uint32_t len; unsigned char *data; };

static int load(const char *path, struct msg **out) {
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); return -1; }
    int n = 0, cap = 0; struct msg *m = NULL;
    unsigned char h[6];
    while (fread(h, 1, 6, f) == 6) {
        if (n == cap) { cap = cap ? cap * 2 : 64; m = realloc(m, cap * sizeof *m); }
        m[n].sid = (uint16_t)(h[0] << 8 | h[1]);
        m[n].len = (uint32_t)h[2] << 24 | (uint32_t)h[3] << 16 | (uint32_t)h[4] << 8 | h[5];
        m[n].data = malloc(m[n].len ? m[n].len : 1);
        if (fread(m[n].data, 1, m[n].len, f) != m[n].len) { fprintf(stderr, "short file\n"); return -1; }
        n++;
    }
    fclose(f);
    *out = m;
    return n;
}

static void say(const char *s) { printf("%s\n", s); fflush(stdout); }

/* Returns 1 for a data message (length in *len, stream in *sid), 0 for a notification,
 * -1 at the end of the association (SHUTDOWN received / closed). */
static int recv_one(struct socket *s, unsigned char *buf, size_t cap, size_t *len, uint16_t *sid,
                    int *state) {
    struct sctp_rcvinfo rcv; socklen_t rl = sizeof rcv; unsigned int ity = 0; int flags = 0;
    struct sockaddr_in from; socklen_t fl = sizeof from;
    ssize_t n = usrsctp_recvv(s, buf, cap, (struct sockaddr *)&from, &fl, &rcv, &rl, &ity, &flags);
    if (n <= 0) return -1;
    if (flags & MSG_NOTIFICATION) {
        union sctp_notification *nt = (union sctp_notification *)buf;
        if (nt->sn_header.sn_type == SCTP_ASSOC_CHANGE) {
            switch (nt->sn_assoc_change.sac_state) {
            case SCTP_COMM_UP: say("COMM_UP"); break;
            case SCTP_COMM_LOST: say("COMM_LOST"); *state = -1; break;
            case SCTP_SHUTDOWN_COMP: say("SHUTDOWN_COMP"); *state = 1; break;
            case SCTP_CANT_STR_ASSOC: say("CANT_START"); *state = -1; break;
            default: break;
            }
        } else if (nt->sn_header.sn_type == SCTP_REMOTE_ERROR) {
            say("REMOTE_ERROR");
        }
        return 0;
    }
    if (!(flags & MSG_EOR)) { fprintf(stderr, "message larger than buffer\n"); return -1; }
    *len = (size_t)n;
    *sid = ity == SCTP_RECVV_RCVINFO ? rcv.rcv_sid : 0;
    return 1;
}

static int send_one(struct socket *s, uint16_t sid, const void *d, size_t len, int unordered) {
    struct sctp_sndinfo snd; memset(&snd, 0, sizeof snd);
    snd.snd_sid = sid;
    snd.snd_flags = unordered ? SCTP_UNORDERED : 0;
    return usrsctp_sendv(s, d, len, NULL, 0, &snd, sizeof snd, SCTP_SENDV_SNDINFO, 0) < 0 ? -1 : 0;
}

static void setup(struct socket *s) {
    struct sctp_event ev; memset(&ev, 0, sizeof ev);
    ev.se_assoc_id = SCTP_ALL_ASSOC; ev.se_on = 1;
    uint16_t types[] = {SCTP_ASSOC_CHANGE, SCTP_REMOTE_ERROR};
    for (size_t i = 0; i < sizeof types / sizeof *types; i++) {
        ev.se_type = types[i];
        usrsctp_setsockopt(s, IPPROTO_SCTP, SCTP_EVENT, &ev, sizeof ev);
    }
    const int on = 1;
    usrsctp_setsockopt(s, IPPROTO_SCTP, SCTP_RECVRCVINFO, &on, sizeof on);
    usrsctp_setsockopt(s, IPPROTO_SCTP, SCTP_NODELAY, &on, sizeof on);
    struct sctp_initmsg im; memset(&im, 0, sizeof im);
    im.sinit_num_ostreams = 64; im.sinit_max_instreams = 64;
    usrsctp_setsockopt(s, IPPROTO_SCTP, SCTP_INITMSG, &im, sizeof im);
    int big = 4 * 1024 * 1024;
    usrsctp_setsockopt(s, SOL_SOCKET, SO_RCVBUF, &big, sizeof big);
    usrsctp_setsockopt(s, SOL_SOCKET, SO_SNDBUF, &big, sizeof big);
}

static void bind_to(struct socket *s, const char *ip, uint16_t port) {
    struct sockaddr_in a; memset(&a, 0, sizeof a);
    a.sin_family = AF_INET; a.sin_port = htons(port);
    a.sin_addr.s_addr = strcmp(ip, "any") == 0 ? htonl(INADDR_ANY) : inet_addr(ip);
    if (usrsctp_bind(s, (struct sockaddr *)&a, sizeof a) < 0) { perror("usrsctp_bind"); exit(2); }
}

static double now_s(void) { struct timeval t; gettimeofday(&t, NULL); return t.tv_sec + t.tv_usec / 1e6; }

int main(int argc, char **argv) {
    if (argc < 5) { fprintf(stderr, "usage: see peer.c\n"); return 2; }
    const char *mode = argv[1];
    int is_client = strstr(mode, "client") != NULL, bulk = strncmp(mode, "bulk", 4) == 0;
    usrsctp_init((uint16_t)atoi(argv[3]), NULL, NULL);
    usrsctp_sysctl_set_sctp_blackhole(2);
    usrsctp_sysctl_set_sctp_no_csum_on_loopback(0);
    static unsigned char buf[1 << 17];
    int state = 0, ok = 1;
    struct socket *s = usrsctp_socket(AF_INET, SOCK_STREAM, IPPROTO_SCTP, NULL, NULL, 0, NULL);
    if (!s) { perror("usrsctp_socket"); return 2; }
    setup(s);
    if (!is_client) {
        bind_to(s, argv[2], (uint16_t)atoi(argv[4]));
        usrsctp_listen(s, 1);
        say("READY");
        struct socket *c = usrsctp_accept(s, NULL, NULL);
        if (!c) { perror("usrsctp_accept"); return 2; }
        say("COMM_UP");
        unsigned long n = 0, octets = 0; double t0 = 0;
        for (;;) {
            size_t len; uint16_t sid;
            int r = recv_one(c, buf, sizeof buf, &len, &sid, &state);
            if (r < 0) break;
            if (r == 0) continue;
            if (n == 0) t0 = now_s();
            n++; octets += len;
            if (!bulk && send_one(c, sid, buf, len, 1) < 0) { perror("send"); ok = 0; break; }
        }
        printf("RECV %lu %lu %.6f\n", n, octets, now_s() - t0);
        /* Collect the association's last notification (SHUTDOWN_COMP or COMM_LOST). */
        while (state == 0) {
            size_t len; uint16_t sid;
            if (recv_one(c, buf, sizeof buf, &len, &sid, &state) < 0) break;
        }
        usrsctp_close(c);
        usrsctp_close(s);
    } else {
        if (argc < 7) { fprintf(stderr, "usage: see peer.c\n"); return 2; }
        struct msg *m; int n = load(argv[6], &m);
        int repeat = argc > 7 ? atoi(argv[7]) : 1;
        if (n < 0) return 2;
        bind_to(s, argv[2], (uint16_t)atoi(argv[5]));
        struct sctp_udpencaps enc; memset(&enc, 0, sizeof enc);
        enc.sue_address.ss_family = AF_INET; enc.sue_port = htons((uint16_t)atoi(argv[4]));
        usrsctp_setsockopt(s, IPPROTO_SCTP, SCTP_REMOTE_UDP_ENCAPS_PORT, &enc, sizeof enc);
        struct sockaddr_in to; memset(&to, 0, sizeof to);
        to.sin_family = AF_INET; to.sin_port = htons((uint16_t)atoi(argv[5]));
        to.sin_addr.s_addr = inet_addr("127.0.0.1");
        if (usrsctp_connect(s, (struct sockaddr *)&to, sizeof to) < 0) { perror("usrsctp_connect"); say("CANT_START"); return 1; }
        say("COMM_UP");
        if (bulk) {
            double t0 = now_s(); unsigned long octets = 0;
            for (int r = 0; r < repeat; r++)
                for (int i = 0; i < n; i++) {
                    if (send_one(s, m[i].sid, m[i].data, m[i].len, 1) < 0) { perror("send"); ok = 0; break; }
                    octets += m[i].len;
                }
            printf("SENT %lu %.6f\n", octets, now_s() - t0);
        } else {
            int good = 0;
            for (int i = 0; i < n && ok; i++) {
                if (send_one(s, m[i].sid, m[i].data, m[i].len, 1) < 0) { perror("send"); ok = 0; break; }
                for (;;) {
                    size_t len; uint16_t sid;
                    int r = recv_one(s, buf, sizeof buf, &len, &sid, &state);
                    if (r < 0) { ok = 0; break; }
                    if (r == 0) continue;
                    if (sid == m[i].sid && len == m[i].len && memcmp(buf, m[i].data, len) == 0) good++;
                    else printf("ECHO_BAD %d\n", i);
                    break;
                }
            }
            printf("ECHO_OK %d\n", good);
            if (good != n) ok = 0;
        }
        fflush(stdout);
        usrsctp_shutdown(s, SHUT_WR);
        while (state == 0) {
            size_t len; uint16_t sid;
            if (recv_one(s, buf, sizeof buf, &len, &sid, &state) < 0) break;
        }
        usrsctp_close(s);
    }
    if (state != 1) ok = 0;
    say(ok ? "DONE" : "FAILED");
    /* The stack's own teardown, after the association has ended: usrsctp_finish() fails while
     * any endpoint is still listed, and on one loaded CI run (stop 51) it never succeeded
     * within 20 s after a clean SHUTDOWN-COMPLETE and DONE. It is not the exchange under test,
     * so it gets 2 s and a line saying it did not finish; the exit status is the exchange's. */
    int tries = 0;
    while (usrsctp_finish() != 0 && ++tries < 200) usleep(10000);
    if (tries >= 200) say("FINISH_PENDING");
    return ok ? 0 : 1;
}
