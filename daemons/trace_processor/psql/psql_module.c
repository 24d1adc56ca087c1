/*
 * PerfettoSQL modules: the standard library built into the binary and
 * the packages added from directories, each module a piece of SQL run
 * once per database by INCLUDE PERFETTO MODULE.
 */
#include "config.h"

#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "psql_int.h"
#include "psql_stdlib.h"

/* Bounds on what a package directory may hold. */
#define PKG_FILE_MAX	(16u << 20)
#define PKG_DEPTH_MAX	16

static struct psql_module *
module_find(struct psql *ps, const char *name)
{
	size_t i;

	for (i = 0; i < ps->nmods; i++)
		if (strcmp(ps->mods[i].name, name) == 0)
			return &ps->mods[i];
	return NULL;
}

int
psql_module_add(struct psql *ps, const char *name, const char *sql,
    int override, char **err)
{
	struct psql_module *m = module_find(ps, name), *v;
	char *s;

	if (m != NULL && !override) {
		*err = psql_fmt("module %s already exists", name);
		return -1;
	}
	if ((s = strdup(sql)) == NULL) {
		*err = psql_fmt("out of memory");
		return -1;
	}
	if (m != NULL) {
		free(m->sql);
		m->sql = s;
		m->included = 0;
		return 0;
	}
	if ((v = realloc(ps->mods, (ps->nmods + 1) * sizeof(*v))) == NULL ||
	    (v[ps->nmods].name = strdup(name)) == NULL) {
		if (v != NULL)
			ps->mods = v;
		free(s);
		*err = psql_fmt("out of memory");
		return -1;
	}
	ps->mods = v;
	v[ps->nmods].sql = s;
	v[ps->nmods].included = 0;
	ps->nmods++;
	return 0;
}

void
psql_modules_free(struct psql *ps)
{
	size_t i;

	for (i = 0; i < ps->nmods; i++) {
		free(ps->mods[i].name);
		free(ps->mods[i].sql);
	}
	free(ps->mods);
	ps->mods = NULL;
	ps->nmods = 0;
}

int
psql_stdlib_add(struct psql *ps, char **err)
{
	const struct psql_stdlib_file *f;
	char name[256], *p;

	for (f = psql_stdlib_files; f->path != NULL; f++) {
		/* linux/cpu/frequency.sql -> linux.cpu.frequency */
		snprintf(name, sizeof(name), "%s", f->path);
		if ((p = strrchr(name, '.')) != NULL)
			*p = '\0';
		for (p = name; *p != '\0'; p++)
			if (*p == '/')
				*p = '.';
		if (psql_module_add(ps, name, f->sql, 0, err) == -1)
			return -1;
	}
	return 0;
}

static int
module_cmp(const void *a, const void *b)
{
	return strcmp(((const struct psql_module *)a)->name,
	    ((const struct psql_module *)b)->name);
}

static int
module_include(struct psql *ps, struct psql_module *m, char **err)
{
	if (m->included)
		return 0;
	m->included = 1;
	if (psql_run(ps, m->name, m->sql, err) == -1) {
		m->included = 0;
		return -1;
	}
	return 0;
}

int
psql_include(struct psql *ps, const char *pattern, char **err)
{
	struct psql_module *m;
	size_t i, n = strlen(pattern), pkg = strcspn(pattern, ".");
	int any = 0;

	if (n > 0 && pattern[n - 1] == '*') {
		/* a.b.* or *: every module under the prefix, in name order. */
		qsort(ps->mods, ps->nmods, sizeof(*ps->mods), module_cmp);
		for (i = 0; i < ps->nmods; i++) {
			if (strncmp(ps->mods[i].name, pattern, n - 1) != 0)
				continue;
			any = 1;
			if (module_include(ps, &ps->mods[i], err) == -1)
				return -1;
		}
		if (!any) {
			*err = psql_fmt("INCLUDE: no module matches '%s'",
			    pattern);
			return -1;
		}
		return 0;
	}
	if ((m = module_find(ps, pattern)) != NULL)
		return module_include(ps, m, err);
	for (i = 0; i < ps->nmods; i++)
		if (strncmp(ps->mods[i].name, pattern, pkg) == 0 &&
		    ps->mods[i].name[pkg] == '.')
			any = 1;
	*err = any ? psql_fmt("INCLUDE: unknown module '%s'", pattern) :
	    psql_fmt("INCLUDE: Package '%s' not found", pattern);
	return -1;
}

/* The whole of a regular file, NUL-terminated and malloc'd. */
static char *
file_read(int dirfd, const char *name, char **err)
{
	struct stat sb;
	char *buf = NULL;
	ssize_t r;
	size_t got = 0;
	int fd;

	if ((fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) ==
	    -1 || fstat(fd, &sb) == -1) {
		*err = psql_fmt("%s: %s", name, strerror(errno));
		goto out;
	}
	if (!S_ISREG(sb.st_mode) || (size_t)sb.st_size > PKG_FILE_MAX) {
		*err = psql_fmt("%s: not a regular file of at most %u bytes",
		    name, PKG_FILE_MAX);
		goto out;
	}
	if ((buf = malloc((size_t)sb.st_size + 1)) == NULL) {
		*err = psql_fmt("out of memory");
		goto out;
	}
	while (got < (size_t)sb.st_size &&
	    (r = read(fd, buf + got, (size_t)sb.st_size - got)) > 0)
		got += (size_t)r;
	buf[got] = '\0';
	if (memchr(buf, '\0', got) != NULL) {
		*err = psql_fmt("%s: holds a NUL byte", name);
		free(buf);
		buf = NULL;
	}
out:
	if (fd != -1)
		close(fd);
	return buf;
}

/* Adds the .sql files under the directory open at dirfd as prefix.x. */
static int
package_walk(struct psql *ps, int dirfd, const char *prefix, int override,
    int depth, char **err)
{
	struct dirent *de;
	struct stat sb;
	DIR *d;
	char *name, *sql;
	size_t l;
	int fd, rc = 0;

	if (depth > PKG_DEPTH_MAX) {
		*err = psql_fmt("%s: directories nest too deep", prefix);
		close(dirfd);
		return -1;
	}
	if ((d = fdopendir(dirfd)) == NULL) {
		*err = psql_fmt("%s: %s", prefix, strerror(errno));
		close(dirfd);
		return -1;
	}
	while (rc == 0 && (de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' ||
		    fstatat(dirfd, de->d_name, &sb, AT_SYMLINK_NOFOLLOW) == -1)
			continue;
		l = strlen(de->d_name);
		if (S_ISDIR(sb.st_mode)) {
			if ((name = psql_fmt("%s.%s", prefix, de->d_name)) ==
			    NULL || (fd = openat(dirfd, de->d_name, O_RDONLY |
			    O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW)) == -1) {
				*err = psql_fmt("%s: %s", de->d_name,
				    strerror(errno));
				rc = -1;
			} else
				rc = package_walk(ps, fd, name, override,
				    depth + 1, err);
			free(name);
		} else if (S_ISREG(sb.st_mode) && l > 4 &&
		    strcmp(de->d_name + l - 4, ".sql") == 0) {
			if ((sql = file_read(dirfd, de->d_name, err)) == NULL)
				rc = -1;
			else if ((name = psql_fmt("%s.%.*s", prefix,
			    (int)(l - 4), de->d_name)) == NULL) {
				*err = psql_fmt("out of memory");
				rc = -1;
			} else
				rc = psql_module_add(ps, name, sql, override,
				    err);
			if (sql != NULL)
				free(name);
			free(sql);
		}
	}
	closedir(d);
	return rc;
}

int
psql_package_add_dir(struct psql *ps, const char *dir, int override,
    char **err)
{
	const char *base, *e;
	char *pkg;
	size_t i, n;
	int fd, rc;

	/* The package is named after the directory's last component. */
	for (e = dir + strlen(dir); e > dir && e[-1] == '/'; e--)
		;
	for (base = e; base > dir && base[-1] != '/'; base--)
		;
	if (base == e || (pkg = psql_strndup(base, (size_t)(e - base))) ==
	    NULL) {
		*err = psql_fmt("%s: not a package directory", dir);
		return -1;
	}
	n = strlen(pkg);
	for (i = 0; !override && i < ps->nmods; i++)
		if (strncmp(ps->mods[i].name, pkg, n) == 0 &&
		    ps->mods[i].name[n] == '.') {
			*err = psql_fmt("Package '%s' already exists", pkg);
			free(pkg);
			return -1;
		}
	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1) {
		*err = psql_fmt("%s: %s", dir, strerror(errno));
		free(pkg);
		return -1;
	}
	rc = package_walk(ps, fd, pkg, override, 0, err);
	free(pkg);
	return rc;
}
