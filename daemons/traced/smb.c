/*
 * The shared memory buffer of each producer: created by traced (a sealed
 * memfd) the first time one of the producer's data sources is set up, or
 * taken from the producer when it offered its own at InitializeConnection.
 * The descriptor reaches the producer with the GetAsyncCommand reply that
 * carries setup_tracing, as upstream sends it.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "traced.h"

int
smb_setup(struct tproducer *p, const Perfetto__Protos__TraceConfig *cfg)
{
	struct smb	*smb;
	const char	*cause;
	char		 name[64];
	size_t		 size, page;

	if (p->smb != NULL)
		return 0;
	session_config_smb_sizes(cfg, p, &size, &page);
	/* Past the global budget, big hints get the default size. */
	if (p->svc->smb_bytes + size > TRACED_MAX_SMB_TOTAL) {
		size = TRACED_SMB_SIZE_DEFAULT;
		page = TRACED_SMB_PAGE_DEFAULT;
		if (p->svc->smb_bytes + size > TRACED_MAX_SMB_TOTAL) {
			log_warnx("%s: producer %u: SMB budget exhausted",
			    __func__, p->id);
			return -1;
		}
	}
	if ((smb = calloc(1, sizeof(*smb))) == NULL)
		return -1;
	snprintf(name, sizeof(name), "traced-smb-%u", p->id);
	if (shm_region_create(&smb->region, size, name, &cause) == -1 ||
	    shm_abi_init(&smb->abi, smb->region.base, size, page,
	    &cause) == -1) {
		log_warnx("%s: producer %u: %s", __func__, p->id, cause);
		shm_region_close(&smb->region);
		free(smb);
		return -1;
	}
	p->smb = smb;
	p->svc->smb_bytes += smb->region.size;
	log_debug("%s: producer %u: SMB %zu KiB, pages %zu KiB", __func__,
	    p->id, size / 1024, page / 1024);
	producer_port_setup_tracing(p);
	return 0;
}

/*
 * A producer-provided SMB (InitializeConnection.producer_provided_shmem).
 * Takes fd in every case.
 */
int
smb_adopt_untrusted(struct tproducer *p, int fd, size_t page_hint,
    const char **cause)
{
	struct smb	*smb;
	size_t		 page = page_hint ? page_hint : TRACED_SMB_PAGE_DEFAULT;

	if ((smb = calloc(1, sizeof(*smb))) == NULL) {
		*cause = "out of memory";
		close(fd);
		return -1;
	}
	if (shm_region_map_untrusted(&smb->region, fd, TRACED_SMB_SIZE_MAX, 1,
	    cause) == -1) {
		free(smb);
		close(fd);
		return -1;
	}
	if (p->svc->smb_bytes + smb->region.size > TRACED_MAX_SMB_TOTAL) {
		*cause = "SMB budget exhausted";
		shm_region_close(&smb->region);
		free(smb);
		return -1;
	}
	if (page > TRACED_SMB_PAGE_MAX ||
	    shm_abi_init(&smb->abi, smb->region.base, smb->region.size, page,
	    cause) == -1) {
		if (page > TRACED_SMB_PAGE_MAX)
			*cause = "page size too large";
		shm_region_close(&smb->region);
		free(smb);
		return -1;
	}
	p->smb = smb;
	p->smb_from_producer = 1;
	p->svc->smb_bytes += smb->region.size;
	return 0;
}

void
smb_free(struct tproducer *p)
{
	if (p->smb == NULL)
		return;
	p->svc->smb_bytes -= p->smb->region.size;
	shm_region_close(&p->smb->region);
	free(p->smb);
	p->smb = NULL;
}
