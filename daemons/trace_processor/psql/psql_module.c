/*
 * PerfettoSQL modules: the standard library built into the binary and
 * the packages added from directories (psql_pkg.c), each module a piece
 * of SQL run once per database by INCLUDE PERFETTO MODULE.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "psql_int.h"
#include "psql_stdlib.h"

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

/* Does any module belong to package pkg (the first name component)? */
int
psql_package_exists(struct psql *ps, const char *pkg)
{
	size_t i, n = strlen(pkg);

	for (i = 0; i < ps->nmods; i++)
		if (strncmp(ps->mods[i].name, pkg, n) == 0 &&
		    ps->mods[i].name[n] == '.')
			return 1;
	return 0;
}

/* Forgets the modules of package pkg (an override replaces them all). */
void
psql_package_drop(struct psql *ps, const char *pkg)
{
	size_t i, j, n = strlen(pkg);

	for (i = j = 0; i < ps->nmods; i++) {
		if (strncmp(ps->mods[i].name, pkg, n) == 0 &&
		    ps->mods[i].name[n] == '.') {
			free(ps->mods[i].name);
			free(ps->mods[i].sql);
		} else
			ps->mods[j++] = ps->mods[i];
	}
	ps->nmods = j;
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

/* Every module may be included again. */
void
psql_modules_forget(struct psql *ps)
{
	size_t i;

	for (i = 0; i < ps->nmods; i++)
		ps->mods[i].included = 0;
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
	char *name;
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
	if ((name = psql_strndup(pattern, pkg)) == NULL) {
		*err = psql_fmt("out of memory");
		return -1;
	}
	any = psql_package_exists(ps, name);
	free(name);
	*err = any ? psql_fmt("INCLUDE: unknown module '%s'", pattern) :
	    psql_fmt("INCLUDE: Package '%s' not found", pattern);
	return -1;
}
