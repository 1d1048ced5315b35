/*
 * A PGM source built on OpenPGM (Debian's libpgm-dev 5.3), for Convoy's interoperability tests: it sends a file
 * over PGM-over-UDP in APDUs of a given size, at a fixed rate, then keeps the session open for repairs a while
 * and closes it.
 *
 * Usage: openpgm_send NETWORK PORT FILE APDU_SIZE RATE_BYTES_PER_S LINGER_SECONDS
 *   NETWORK  OpenPGM's network string, "interface;group"
 *   PORT     the UDP port (both OpenPGM encapsulation ports; Convoy's --group port)
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
	if (argc != 7) {
		fprintf(stderr, "usage: %s NETWORK PORT FILE APDU_SIZE RATE_BYTES_PER_S LINGER_SECONDS\n", argv[0]);
		return 2;
	}
	pgm_error_t *err = NULL;
	if (!pgm_init(&err))
		fail("starting OpenPGM", err);
	pgm_sock_t *sock = open_pgm_socket(argv[1], atoi(argv[2]), atoi(argv[5]));
	FILE *in = fopen(argv[3], "rb");
	if (!in) {
		fprintf(stderr, "openpgm_send: %s: %s\n", argv[3], strerror(errno));
		return 2;
	}
	const size_t apdu = (size_t)atol(argv[4]);
	char *buf = malloc(apdu);
	unsigned long long apdus = 0, bytes = 0;
	size_t n;
	while ((n = fread(buf, 1, apdu, in)) > 0) {
		size_t written = 0;
		int status;
		while ((status = pgm_send(sock, buf, n, &written)) != PGM_IO_STATUS_NORMAL) {
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
