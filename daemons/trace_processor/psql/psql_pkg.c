/*
 * PerfettoSQL packages from directories (--add-sql-package DIR,
 * --override-sql-package DIR): DIR/a/b.sql is module PKG.a.b, PKG being
 * DIR's last component unless named. The files are read once, before the
 * program confines itself, and the set is added to every engine it
 * creates (the RPC makes a new one for each trace).
 */
#include "config.h"

#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "psql_int.h"

/* Bounds on what a package directory may hold. */
#define PKG_FILE_MAX	(16u << 20)
#define PKG_DEPTH_MAX	16

struct pkg {
	char			*name;
	int			 override;
	struct psql_module	*mods;
	size_t			 nmods;
};

struct psql_pkgs {
	struct pkg	*v;
	size_t		 n;
};

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

/* Takes name and sql (malloc'd) into p. */
static int
pkg_take(struct pkg *p, char *name, char *sql, char **err)
{
	struct psql_module *m;

	if ((m = realloc(p->mods, (p->nmods + 1) * sizeof(*m))) == NULL) {
		free(name);
		free(sql);
		*err = psql_fmt("out of memory");
		return -1;
	}
	p->mods = m;
	m[p->nmods].name = name;
	m[p->nmods].sql = sql;
	m[p->nmods].included = 0;
	p->nmods++;
	return 0;
}

/* The .sql files under the directory open at dirfd, as prefix.x. */
static int
pkg_walk(struct pkg *p, int dirfd, const char *prefix, int depth,
    char **err)
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
			name = psql_fmt("%s.%s", prefix, de->d_name);
			if (name == NULL || (fd = openat(dirfd, de->d_name,
			    O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW)) ==
			    -1) {
				*err = psql_fmt("%s: %s", de->d_name,
				    strerror(errno));
				rc = -1;
			} else
				rc = pkg_walk(p, fd, name, depth + 1, err);
			free(name);
		} else if (S_ISREG(sb.st_mode) && l > 4 &&
		    strcmp(de->d_name + l - 4, ".sql") == 0) {
			if ((sql = file_read(dirfd, de->d_name, err)) == NULL)
				rc = -1;
			else if ((name = psql_fmt("%s.%.*s", prefix,
			    (int)(l - 4), de->d_name)) == NULL) {
				free(sql);
				*err = psql_fmt("out of memory");
				rc = -1;
			} else
				rc = pkg_take(p, name, sql, err);
		}
	}
	closedir(d);
	return rc;
}

int
psql_pkgs_read(struct psql_pkgs **setp, const char *dir, const char *name,
    int override, char **err)
{
	struct psql_pkgs *set = *setp;
	const char *base, *e;
	struct pkg *p, *v;
	int fd;

	/* Named after the directory's last component unless named. */
	for (e = dir + strlen(dir); e > dir && e[-1] == '/'; e--)
		;
	for (base = e; base > dir && base[-1] != '/'; base--)
		;
	if (name == NULL && base == e) {
		*err = psql_fmt("%s: not a package directory", dir);
		return -1;
	}
	if (set == NULL && (set = *setp = calloc(1, sizeof(*set))) == NULL)
		goto nomem;
	if ((v = realloc(set->v, (set->n + 1) * sizeof(*v))) == NULL)
		goto nomem;
	set->v = v;
	p = &v[set->n];
	memset(p, 0, sizeof(*p));
	p->override = override;
	if ((p->name = name != NULL ? strdup(name) :
	    psql_strndup(base, (size_t)(e - base))) == NULL)
		goto nomem;
	set->n++;
	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1) {
		*err = psql_fmt("%s: %s", dir, strerror(errno));
		return -1;
	}
	return pkg_walk(p, fd, p->name, 0, err);
nomem:
	*err = psql_fmt("out of memory");
	return -1;
}

int
psql_package_begin(struct psql *ps, const char *pkg, int override,
    char **err)
{
	if (psql_package_exists(ps, pkg)) {
		if (!override) {
			*err = psql_fmt("Package '%s' already exists", pkg);
			return -1;
		}
		psql_package_drop(ps, pkg);
	}
	return 0;
}

int
psql_pkgs_add(struct psql *ps, const struct psql_pkgs *set, char **err)
{
	const struct pkg *p;
	size_t i, j;

	for (i = 0; set != NULL && i < set->n; i++) {
		p = &set->v[i];
		if (psql_package_begin(ps, p->name, p->override, err) == -1)
			return -1;
		for (j = 0; j < p->nmods; j++)
			if (psql_module_add(ps, p->mods[j].name,
			    p->mods[j].sql, 0, err) == -1)
				return -1;
	}
	return 0;
}

void
psql_pkgs_free(struct psql_pkgs *set)
{
	size_t i, j;

	if (set == NULL)
		return;
	for (i = 0; i < set->n; i++) {
		for (j = 0; j < set->v[i].nmods; j++) {
			free(set->v[i].mods[j].name);
			free(set->v[i].mods[j].sql);
		}
		free(set->v[i].mods);
		free(set->v[i].name);
	}
	free(set->v);
	free(set);
}
