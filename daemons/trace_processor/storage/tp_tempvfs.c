/*
 * SQLite's temporary files, kept in memory.
 *
 * Why: with temp_store=MEMORY, SQLite's sorter (GROUP BY, ORDER BY,
 * DISTINCT over millions of rows) sorts all its records as one list in
 * memory, which is slow once they outgrow the caches (2.3M thread_state
 * rows grouped by thread name and state: 2.6 s). With temp_store=FILE it
 * sorts runs of at most the cache size and merges them (1.24 s with 8 MB
 * runs, and less memory at its peak), but writes them to files in
 * /var/tmp, which the sandbox forbids and a confined daemon should not
 * need. So temp_store is FILE, and this VFS, made the default, gives
 * SQLite the files it asks for with no name (its temporary ones: sorter
 * runs, temp tables, statement journals) as memory; a named file goes to
 * the VFS it wraps.
 *
 * A file is an array of fixed-size chunks, grown as it is written; a
 * read past the end gives zeros and SQLITE_IOERR_SHORT_READ, as a file's.
 */
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "tp_int.h"

#define CHUNK_SHIFT	16		/* 64 KB chunks: below malloc's mmap threshold */
#define CHUNK		((sqlite3_int64)1 << CHUNK_SHIFT)

struct memfile {
	sqlite3_file	 base;
	unsigned char	**chunks;
	size_t		 nchunks;
	sqlite3_int64	 size;
};

static sqlite3_vfs	*wrapped;

static int
mem_close(sqlite3_file *f)
{
	struct memfile *m = (struct memfile *)f;
	size_t i;

	for (i = 0; i < m->nchunks; i++)
		free(m->chunks[i]);
	free(m->chunks);
	return SQLITE_OK;
}

/* Bytes [off, off + len) of the file's chunks, chunk by chunk: copied
 * to out (a read), else from in (a write), else zeroed. */
static void
mem_span(struct memfile *m, sqlite3_int64 off, sqlite3_int64 len,
    unsigned char *out, const unsigned char *in)
{
	sqlite3_int64 at, n;
	unsigned char *c;

	while (len > 0) {
		at = off & (CHUNK - 1);
		n = CHUNK - at < len ? CHUNK - at : len;
		c = m->chunks[off >> CHUNK_SHIFT] + at;
		if (out != NULL) {
			memcpy(out, c, (size_t)n);
			out += n;
		} else if (in != NULL) {
			memcpy(c, in, (size_t)n);
			in += n;
		} else {
			memset(c, 0, (size_t)n);
		}
		off += n;
		len -= n;
	}
}

static int
mem_read(sqlite3_file *f, void *buf, int amt, sqlite3_int64 off)
{
	struct memfile *m = (struct memfile *)f;
	sqlite3_int64 n;
	int rc = SQLITE_OK;

	if (off < 0 || amt < 0)
		return SQLITE_IOERR_READ;
	if (off + amt > m->size) {
		/* The part past the end reads as zeros. */
		n = off >= m->size ? amt : off + amt - m->size;
		memset((unsigned char *)buf + (amt - n), 0, (size_t)n);
		amt -= (int)n;
		rc = SQLITE_IOERR_SHORT_READ;
	}
	mem_span(m, off, amt, buf, NULL);
	return rc;
}

/* Chunks enough for size bytes. */
static int
mem_reserve(struct memfile *m, sqlite3_int64 size)
{
	size_t need = (size_t)((size + CHUNK - 1) >> CHUNK_SHIFT), cap;
	unsigned char **c;

	if (need <= m->nchunks)
		return 0;
	for (cap = m->nchunks ? m->nchunks : 8; cap < need; cap *= 2)
		;
	if ((c = realloc(m->chunks, cap * sizeof(*c))) == NULL)
		return -1;
	m->chunks = c;
	while (m->nchunks < need)
		if ((c[m->nchunks++] = malloc(CHUNK)) == NULL) {
			m->nchunks--;
			return -1;
		}
	return 0;
}

static int
mem_write(sqlite3_file *f, const void *buf, int amt, sqlite3_int64 off)
{
	struct memfile *m = (struct memfile *)f;
	sqlite3_int64 end = off + amt;

	if (off < 0 || amt < 0)
		return SQLITE_IOERR_WRITE;
	if (mem_reserve(m, end) == -1)
		return SQLITE_IOERR_NOMEM;
	/* A hole written past the end reads as zeros. */
	if (m->size < off) {
		mem_span(m, m->size, off - m->size, NULL, NULL);
		m->size = off;
	}
	mem_span(m, off, amt, NULL, buf);
	if (end > m->size)
		m->size = end;
	return SQLITE_OK;
}

static int
mem_truncate(sqlite3_file *f, sqlite3_int64 size)
{
	struct memfile *m = (struct memfile *)f;

	if (size < m->size)
		m->size = size < 0 ? 0 : size;
	return SQLITE_OK;
}

static int
mem_sync(sqlite3_file *f, int flags)
{
	(void)f;
	(void)flags;
	return SQLITE_OK;
}

static int
mem_file_size(sqlite3_file *f, sqlite3_int64 *size)
{
	*size = ((struct memfile *)f)->size;
	return SQLITE_OK;
}

static int
mem_lock(sqlite3_file *f, int lock)
{
	(void)f;
	(void)lock;
	return SQLITE_OK;
}

static int
mem_check_lock(sqlite3_file *f, int *out)
{
	(void)f;
	*out = 0;
	return SQLITE_OK;
}

static int
mem_control(sqlite3_file *f, int op, void *arg)
{
	(void)f;
	(void)op;
	(void)arg;
	return SQLITE_NOTFOUND;
}

static int
mem_sector_size(sqlite3_file *f)
{
	(void)f;
	return 4096;
}

static int
mem_characteristics(sqlite3_file *f)
{
	(void)f;
	return SQLITE_IOCAP_ATOMIC | SQLITE_IOCAP_SAFE_APPEND |
	    SQLITE_IOCAP_SEQUENTIAL | SQLITE_IOCAP_POWERSAFE_OVERWRITE;
}

static const sqlite3_io_methods mem_methods = {
	.iVersion = 1,
	.xClose = mem_close,
	.xRead = mem_read,
	.xWrite = mem_write,
	.xTruncate = mem_truncate,
	.xSync = mem_sync,
	.xFileSize = mem_file_size,
	.xLock = mem_lock,
	.xUnlock = mem_lock,
	.xCheckReservedLock = mem_check_lock,
	.xFileControl = mem_control,
	.xSectorSize = mem_sector_size,
	.xDeviceCharacteristics = mem_characteristics,
};

static int
vfs_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *f, int flags,
    int *out_flags)
{
	struct memfile *m = (struct memfile *)f;

	(void)vfs;
	if (name != NULL)
		return wrapped->xOpen(wrapped, name, f, flags, out_flags);
	memset(m, 0, sizeof(*m));
	m->base.pMethods = &mem_methods;
	if (out_flags != NULL)
		*out_flags = flags;
	return SQLITE_OK;
}

/* The rest is the wrapped VFS's. */
static int
vfs_delete(sqlite3_vfs *vfs, const char *name, int sync)
{
	(void)vfs;
	return wrapped->xDelete(wrapped, name, sync);
}

static int
vfs_access(sqlite3_vfs *vfs, const char *name, int flags, int *out)
{
	(void)vfs;
	return wrapped->xAccess(wrapped, name, flags, out);
}

static int
vfs_full_pathname(sqlite3_vfs *vfs, const char *name, int n, char *out)
{
	(void)vfs;
	return wrapped->xFullPathname(wrapped, name, n, out);
}

static int
vfs_randomness(sqlite3_vfs *vfs, int n, char *out)
{
	(void)vfs;
	return wrapped->xRandomness(wrapped, n, out);
}

static int
vfs_sleep(sqlite3_vfs *vfs, int us)
{
	(void)vfs;
	return wrapped->xSleep(wrapped, us);
}

static int
vfs_current_time(sqlite3_vfs *vfs, double *out)
{
	(void)vfs;
	return wrapped->xCurrentTime(wrapped, out);
}

static int
vfs_last_error(sqlite3_vfs *vfs, int n, char *out)
{
	(void)vfs;
	return wrapped->xGetLastError(wrapped, n, out);
}

static sqlite3_vfs tempvfs = {
	.iVersion = 1,
	.mxPathname = 512,
	.zName = "faro-tempmem",
	.xOpen = vfs_open,
	.xDelete = vfs_delete,
	.xAccess = vfs_access,
	.xFullPathname = vfs_full_pathname,
	.xRandomness = vfs_randomness,
	.xSleep = vfs_sleep,
	.xCurrentTime = vfs_current_time,
	.xGetLastError = vfs_last_error,
};

int
tp_tempvfs_register(void)
{
	if (wrapped != NULL)
		return 0;
	if ((wrapped = sqlite3_vfs_find(NULL)) == NULL)
		return -1;
	tempvfs.szOsFile = wrapped->szOsFile > (int)sizeof(struct memfile) ?
	    wrapped->szOsFile : (int)sizeof(struct memfile);
	tempvfs.mxPathname = wrapped->mxPathname;
	if (sqlite3_vfs_register(&tempvfs, 1) != SQLITE_OK) {
		wrapped = NULL;
		return -1;
	}
	return 0;
}
