/*
 * A PGM source built on OpenPGM (Debian's libpgm-dev 5.3), for Convoy's interoperability tests: it sends a file
 * over PGM-over-UDP in APDUs of a given size, at a fixed rate, then keeps the session open for repairs a while
 * and closes it.
 *
 * Usage: openpgm_send NETWORK PORT FILE APDU_SIZE RATE_BYTES_PER_S LINGER_SECONDS [pgmcc]
 *   NETWORK  OpenPGM's network string, "interface;group"
 *   PORT     the UDP port (both OpenPGM encapsulation ports; Convoy's --group port)
 *   pgmcc    run OpenPGM's PGMCC: the rate is then a cap, the acker's window decides
 */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <pgm/pgm.h>
#include "openpgm_socket.h"



/* Exported by libpgm 5.3 but not declared in its headers: the headroom pgm_send_skbv needs before the TSDU. */
size_t pgm_pkt_offset(bool can_fragment, sa_family_t pgmcc_family);

/*
 * Send one APDU of at most one packet. With PGMCC, through the zero-copy path: pgm_send crashes (SIGSEGV in
 * pgm_compat_csum_partial_copy, libpgm 5.3.128) once OPT_PGMCC_DATA precedes the payload, while pgm_send_skbv
 * checksums the payload in place.
 */
static int send_apdu(pgm_sock_t *sock, bool pgmcc, const char *buf, size_t n, struct pgm_sk_buff_t **pending,
		     size_t *written)
{
	if (!pgmcc)
		return pgm_send(sock, buf, n, written);
	if (!*pending) {
		const size_t headroom = pgm_pkt_offset(false, AF_INET);
		*pending = pgm_alloc_skb((uint16_t)(headroom + n));
		pgm_skb_reserve(*pending, (uint16_t)headroom);
		memcpy(pgm_skb_put(*pending, (uint16_t)n), buf, n);
	}
	const int status = pgm_send_skbv(sock, pending, 1, true, written);
	if (status == PGM_IO_STATUS_NORMAL)
		*pending = NULL; /* OpenPGM owns it now */
	return status;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Run OpenPGM's receive path for up to `ms` milliseconds: NAKs reaching the source are answered there. */
static void pump(pgm_sock_t *sock, int ms)
{
	static char buf[65536];
	pgm_error_t *err = NULL;
	size_t len = 0;
	const int status = pgm_recv(sock, buf, sizeof(buf), MSG_DONTWAIT, &len, &err);
	if (err) {
		pgm_error_free(err);
	}
	if (status == PGM_IO_STATUS_NORMAL || ms <= 0)
		return;
	struct pollfd fds[8];
	int n = 8;
	memset(fds, 0, sizeof(fds));
	pgm_poll_info(sock, fds, &n, POLLIN);
	poll(fds, (nfds_t)n, ms);
}

int main(int argc, char **argv)
{
	const bool pgmcc = argc == 8 && strcmp(argv[7], "pgmcc") == 0;
	if (argc != 7 && !pgmcc) {
		fprintf(stderr, "usage: %s NETWORK PORT FILE APDU_SIZE RATE_BYTES_PER_S LINGER_SECONDS [pgmcc]\n", argv[0]);
		return 2;
	}
	pgm_error_t *err = NULL;
	if (!pgm_init(&err))
		fail("starting OpenPGM", err);
	pgm_sock_t *sock = open_pgm_socket(argv[1], atoi(argv[2]), atoi(argv[5]), pgmcc);
	FILE *in = fopen(argv[3], "rb");
	if (!in) {
		fprintf(stderr, "openpgm_send: %s: %s\n", argv[3], strerror(errno));
		return 2;
	}
	const size_t apdu = (size_t)atol(argv[4]);
	char *buf = malloc(apdu);
	unsigned long long apdus = 0, bytes = 0;
	size_t n;
	struct pgm_sk_buff_t *pending = NULL;
	while ((n = fread(buf, 1, apdu, in)) > 0) {
		size_t written = 0;
		int status;
		while ((status = send_apdu(sock, pgmcc, buf, n, &pending, &written)) != PGM_IO_STATUS_NORMAL) {
			if (status == PGM_IO_STATUS_ERROR)
				fail("sending", NULL);
			pump(sock, 1); /* rate limited or would block */
		}
		pump(sock, 0);
		apdus++;
		bytes += n;
	}
	fclose(in);
	/* Serve repairs for a while before closing. */
	const double until = now_s() + atof(argv[6]);
	while (now_s() < until)
		pump(sock, 50);
	fprintf(stderr, "apdus %llu bytes %llu\n", apdus, bytes);
	pgm_close(sock, true);
	pgm_shutdown();
	return 0;
}
