/*
 * A PGM receiver built on OpenPGM (Debian's libpgm-dev 5.3), for Convoy's interoperability tests: it joins a
 * group over PGM-over-UDP, writes every APDU it receives to a file (each preceded by its length, 4 bytes
 * big-endian) and prints what it saw to stderr as one line of counts when it stops.
 *
 * Usage: openpgm_recv NETWORK PORT OUT IDLE_SECONDS MAX_SECONDS
 *   NETWORK       OpenPGM's network string, "interface;group" (e.g. "10.77.0.2;239.192.0.1")
 *   PORT          the UDP port (both OpenPGM encapsulation ports; Convoy's --group port)
 *   OUT           the file the APDUs go to
 *   IDLE_SECONDS  stop this long after the last APDU (once one has come)
 *   MAX_SECONDS   stop after this long in any case
 *
 * It never answers pgmcc's acker election: OpenPGM's PGMCC is compiled out of Debian's library.
 */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
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



int main(int argc, char **argv)
{
	if (argc != 6) {
		fprintf(stderr, "usage: %s NETWORK PORT OUT IDLE_SECONDS MAX_SECONDS\n", argv[0]);
		return 2;
	}
	pgm_error_t *err = NULL;
	if (!pgm_init(&err))
		fail("starting OpenPGM", err);
	pgm_sock_t *sock = open_pgm_socket(argv[1], atoi(argv[2]), 0, false);
	FILE *out = fopen(argv[3], "wb");
	if (!out) {
		fprintf(stderr, "openpgm_recv: %s: %s\n", argv[3], strerror(errno));
		return 2;
	}
	const double idle = atof(argv[4]), start = now_s(), end = start + atof(argv[5]);
	double last = 0;
	unsigned long long apdus = 0, bytes = 0, resets = 0;
	static char buf[1 << 20];
	for (;;) {
		const double t = now_s();
		if (t >= end || (apdus > 0 && t - last >= idle))
			break;
		size_t len = 0;
		const int status = pgm_recvfrom(sock, buf, sizeof(buf), 0, &len, NULL, NULL, &err);
		if (status == PGM_IO_STATUS_NORMAL) {
			const uint32_t n = (uint32_t)len;
			const unsigned char be[4] = { n >> 24, n >> 16, n >> 8, n };
			fwrite(be, 1, 4, out);
			fwrite(buf, 1, len, out);
			apdus++;
			bytes += len;
			last = now_s();
			continue;
		}
		if (status == PGM_IO_STATUS_RESET) {
			resets++;
			if (err) {
				pgm_error_free(err);
				err = NULL;
			}
			continue;
		}
		if (status == PGM_IO_STATUS_ERROR)
			fail("receiving", err);
		/* Timer pending, rate limited or would block: wait on OpenPGM's descriptors for at most 100 ms. */
		struct pollfd fds[8];
		int n = 8;
		memset(fds, 0, sizeof(fds));
		pgm_poll_info(sock, fds, &n, POLLIN);
		int wait_ms = 100;
		if (status == PGM_IO_STATUS_TIMER_PENDING) {
			struct timeval tv;
			socklen_t optlen = sizeof(tv);
			pgm_getsockopt(sock, IPPROTO_PGM, PGM_TIME_REMAIN, &tv, &optlen);
			const int ms = (int)(tv.tv_sec * 1000 + tv.tv_usec / 1000);
			if (ms < wait_ms)
				wait_ms = ms;
		}
		poll(fds, (nfds_t)n, wait_ms);
	}
	fclose(out);
	fprintf(stderr, "apdus %llu bytes %llu resets %llu\n", apdus, bytes, resets);
	pgm_close(sock, true);
	pgm_shutdown();
	return 0;
}
