/*
 * The memfd behind an SMB: created and sealed by one side, mapped by both.
 * The seal matters to whoever did not create it: without F_SEAL_SHRINK the
 * creator could truncate the file and make the other side fault (SIGBUS)
 * on its mapping.
 */
#include "config.h"

#include <sys/mman.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "shm_abi.h"

int
shm_region_create(struct shm_region *r, size_t size, const char *name,
    const char **cause)
{
	void *p;
	int fd;

	memset(r, 0, sizeof(*r));
	r->fd = -1;
	if (size == 0 || size % SHM_PAGE_SIZE_MIN != 0) {
		*cause = "size must be a non-zero multiple of 4 KiB";
		return -1;
	}
	fd = memfd_create(name ? name : "faro-smb",
	    MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd == -1) {
		*cause = "memfd_create failed";
		return -1;
	}
	if (ftruncate(fd, (off_t)size) == -1) {
		*cause = "ftruncate failed";
		goto fail;
	}
	/* As upstream does: the size and the seals themselves are final. */
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW |
	    F_SEAL_SEAL) == -1) {
		*cause = "cannot seal the buffer";
		goto fail;
	}
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		*cause = "mmap failed";
		goto fail;
	}
	r->fd = fd;
	r->base = p;
	r->size = size;
	return 0;
fail:
	close(fd);
	return -1;
}

int
shm_region_map_untrusted(struct shm_region *r, int fd, size_t max_size,
    int require_seal, const char **cause)
{
	struct stat st;
	void *p;
	int seals;

	memset(r, 0, sizeof(*r));
	r->fd = -1;
	if (fstat(fd, &st) == -1) {
		*cause = "fstat failed";
		return -1;
	}
	if (!S_ISREG(st.st_mode) || st.st_size <= 0 ||
	    (uint64_t)st.st_size % SHM_PAGE_SIZE_MIN != 0) {
		*cause = "descriptor is not a buffer of whole 4 KiB pages";
		return -1;
	}
	if (max_size != 0 && (uint64_t)st.st_size > max_size) {
		*cause = "buffer too large";
		return -1;
	}
	if (require_seal) {
		/* Fails with EINVAL on anything but a sealable memfd. */
		seals = fcntl(fd, F_GET_SEALS);
		if (seals == -1 || !(seals & F_SEAL_SHRINK)) {
			*cause = "buffer not sealed against shrinking";
			return -1;
		}
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED,
	    fd, 0);
	if (p == MAP_FAILED) {
		*cause = "mmap failed";
		return -1;
	}
	r->fd = fd;
	r->base = p;
	r->size = (size_t)st.st_size;
	return 0;
}

void
shm_region_close(struct shm_region *r)
{
	if (r->base != NULL && r->size != 0)
		munmap(r->base, r->size);
	if (r->fd > 0)
		close(r->fd);
	r->base = NULL;
	r->size = 0;
	r->fd = -1;
}
