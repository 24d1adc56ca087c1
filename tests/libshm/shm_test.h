/*
 * Shared pieces of the libshm tests: an in-process "service" that applies
 * commits the way traced does (untrusted chunk acquire, copy into a trace
 * buffer, release, then patches), packet collection, and a small protobuf
 * checker to verify what comes out.
 */
#ifndef FARO_SHM_TEST_H
#define FARO_SHM_TEST_H

#include <check.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "libshm/shm_abi.h"
#include "libshm/shm_arbiter.h"
#include "libshm/trace_buffer.h"

struct svc {
	struct shm_region	 region;
	struct shm_abi		*abi;		/* the service's own view */
	struct shm_abi		 abi_store;
	struct trace_buffer	*tb;
	uint16_t		 producer_id;
	uint32_t		 uid;
	pthread_mutex_t		 mu;
	int			 hold;		/* queue commits instead of applying */
	uint64_t		 moves, patches, rejected;
	/* Held commits (hold = 1), applied by svc_release. */
	struct shm_commit_move	 held_moves[4096];
	size_t			 nheld_moves;
	struct shm_commit_patch	 held_patches[512];
	size_t			 nheld_patches;
};

/* A packet read back, flattened. */
struct pkt {
	uint8_t		*data;
	size_t		 len;
	size_t		 nslices;
	int		 dropped;
	uint16_t	 producer_id;
	uint16_t	 writer_id;
	uint32_t	 uid;
};

struct pkts {
	struct pkt	*v;
	size_t		 n, cap;
};

void	svc_init(struct svc *, size_t smb_size, size_t page_size,
	    size_t tb_size, enum trace_buffer_policy);
void	svc_fini(struct svc *);
void	svc_commit_cb(const struct shm_commit *, void *);
void	svc_release(struct svc *);
/* A ready arbiter on the svc's SMB. */
struct shm_arbiter *svc_arbiter(struct svc *, unsigned layout,
	    unsigned batch_chunks);

void	pkts_read(struct trace_buffer *, struct pkts *);
void	pkts_free(struct pkts *);

/* Test packet: field 1 = seq, field 2 = 'len' bytes of pattern(seq). */
void	test_packet_write(struct pbw *, uint64_t seq, size_t len);
/* Checks a test packet; returns its seq or -1. */
int64_t	test_packet_check(const uint8_t *, size_t);

/*
 * Walks a protobuf message recursively (fields 3 and up that are
 * length-delimited are parsed as nested messages). Returns the number of
 * bytes-fields seen, or -1 if any length is inconsistent.
 */
int	proto_check(const uint8_t *, size_t, int depth);

uint8_t	pattern_byte(uint64_t seq, size_t i);

Suite	*abi_suite(void);
Suite	*writer_suite(void);
Suite	*buffer_suite(void);

#endif
