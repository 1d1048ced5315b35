/*
 * The OpenPGM socket both test programs open (openpgm_recv.c, openpgm_send.c): PGM over UDP with both
 * encapsulation ports equal (docs/wire-format.md §1.6: with different ports unicast NAKs never reach the
 * source), the receiver's timers, non-blocking, joined to the group of NETWORK ("interface;group").
 * A source also sets a rate and a transmit window, and may run OpenPGM's PGMCC (PGM_USE_PGMCC: its sender
 * elects an acker from the receivers' ACKs and sends within the acker's window); a receiver is receive-only.
 */
#ifndef OPENPGM_SOCKET_H
#define OPENPGM_SOCKET_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pgm/pgm.h>

static void fail(const char *what, pgm_error_t *err)
{
	fprintf(stderr, "openpgm: %s: %s\n", what, err ? err->message : "failed");
	exit(2);
}

#define SET(opt, value)                                                                \
	do {                                                                           \
		const int v_ = (value);                                                \
		pgm_setsockopt(sock, IPPROTO_PGM, (opt), &v_, sizeof(v_));             \
	} while (0)

/* A source when rate > 0 (bytes per second), with PGMCC when pgmcc, else a receive-only receiver. */
static pgm_sock_t *open_pgm_socket(const char *network, int port, int rate, bool pgmcc)
{
	pgm_error_t *err = NULL;
	struct pgm_addrinfo_t *res = NULL;
	if (!pgm_getaddrinfo(network, NULL, &res, &err))
		fail("parsing the network", err);
	pgm_sock_t *sock = NULL;
	if (!pgm_socket(&sock, res->ai_send_addrs[0].gsr_group.ss_family, SOCK_SEQPACKET, IPPROTO_UDP, &err))
		fail("creating the socket", err);
	SET(PGM_UDP_ENCAP_UCAST_PORT, port);
	SET(PGM_UDP_ENCAP_MCAST_PORT, port);
	SET(PGM_MTU, 1500);
	SET(PGM_RXW_SQNS, 10000);
	/* A source answers NAKs on its receive path, so it keeps one: it needs the receiver's timers too. */
	SET(PGM_PEER_EXPIRY, pgm_secs(300));
	SET(PGM_SPMR_EXPIRY, pgm_msecs(250));
	SET(PGM_NAK_BO_IVL, pgm_msecs(50));
	SET(PGM_NAK_RPT_IVL, pgm_secs(2));
	SET(PGM_NAK_RDATA_IVL, pgm_secs(2));
	SET(PGM_NAK_DATA_RETRIES, 50);
	SET(PGM_NAK_NCF_RETRIES, 50);
	if (rate > 0) {
		const int heartbeat_spm[] = { pgm_msecs(100), pgm_msecs(100), pgm_msecs(100), pgm_msecs(100),
					      pgm_msecs(1300), pgm_secs(7), pgm_secs(16), pgm_secs(25), pgm_secs(30) };
		SET(PGM_TXW_SQNS, 10000);
		SET(PGM_TXW_MAX_RTE, rate);
		SET(PGM_AMBIENT_SPM, pgm_secs(30));
		pgm_setsockopt(sock, IPPROTO_PGM, PGM_HEARTBEAT_SPM, &heartbeat_spm, sizeof(heartbeat_spm));
		/* OpenPGM's defaults (pgm_pgmccinfo_t): ACK back-off 50 ms, c = 0.75, c_p = 500 (scaled by 1000). */
		const struct pgm_pgmccinfo_t cc = { .ack_bo_ivl = pgm_msecs(50), .ack_c = 75, .ack_c_p = 500 };
		if (pgmcc && !pgm_setsockopt(sock, IPPROTO_PGM, PGM_USE_PGMCC, &cc, sizeof(cc)))
			fail("enabling PGMCC", NULL);
	} else {
		SET(PGM_RECV_ONLY, 1);
		SET(PGM_PASSIVE, 0);
	}
	struct pgm_sockaddr_t addr;
	memset(&addr, 0, sizeof(addr));
	addr.sa_port = DEFAULT_DATA_DESTINATION_PORT;
	addr.sa_addr.sport = DEFAULT_DATA_SOURCE_PORT;
	if (!pgm_gsi_create_from_hostname(&addr.sa_addr.gsi, &err))
		fail("creating the GSI", err);
	struct pgm_interface_req_t if_req;
	memset(&if_req, 0, sizeof(if_req));
	if_req.ir_interface = res->ai_recv_addrs[0].gsr_interface;
	if (!pgm_bind3(sock, &addr, sizeof(addr), &if_req, sizeof(if_req), &if_req, sizeof(if_req), &err))
		fail("binding", err);
	for (unsigned i = 0; i < res->ai_recv_addrs_len; i++)
		pgm_setsockopt(sock, IPPROTO_PGM, PGM_JOIN_GROUP, &res->ai_recv_addrs[i], sizeof(struct group_req));
	pgm_setsockopt(sock, IPPROTO_PGM, PGM_SEND_GROUP, &res->ai_send_addrs[0], sizeof(struct group_req));
	pgm_freeaddrinfo(res);
	/* Off for a source: with it on, a PGMCC source answers its own election request and elects itself. */
	SET(PGM_MULTICAST_LOOP, rate > 0 ? 0 : 1);
	SET(PGM_MULTICAST_HOPS, 16);
	SET(PGM_NOBLOCK, 1);
	if (!pgm_connect(sock, &err))
		fail("connecting", err);
	return sock;
}

#undef SET
#endif
