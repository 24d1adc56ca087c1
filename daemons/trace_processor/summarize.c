/*
 * The summarize command: see summarize.h.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "metrics/pbbuf.h"
#include "summarize.h"
#include "summary/summary.h"

/* The whole file, its length in *len; NULL with errno. */
static uint8_t *
summarize_slurp(const char *path, size_t *len)
{
	struct pbbuf b;
	uint8_t chunk[8192];
	FILE *f;
	size_t n;

	if ((f = fopen(path, "rb")) == NULL)
		return NULL;
	pbb_init(&b);
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		pbb_raw(&b, chunk, n);
	if (ferror(f) || b.oom) {
		fclose(f);
		pbb_free(&b);
		errno = ENOMEM;
		return NULL;
	}
	fclose(f);
	pbb_raw(&b, "", 1);	/* a buffer even when empty */
	*len = b.len - 1;
	return pbb_take(&b, &n);
}

int
summarize_open(const struct tp_args *a, struct summarize_files *f)
{
	size_t i, len;
	uint8_t *data;

	memset(f, 0, sizeof(*f));
	if (a->summary.nspecs == 0)
		return 0;
	if ((f->specs = calloc(a->summary.nspecs, sizeof(*f->specs))) ==
	    NULL)
		return -1;
	for (i = 0; i < a->summary.nspecs; i++) {
		if ((data = summarize_slurp(a->summary.specs[i], &len)) ==
		    NULL) {
			fprintf(stderr, "trace_processor: Unable to read "
			    "summary spec file %s\n", a->summary.specs[i]);
			summarize_close(f);
			return -1;
		}
		f->specs[i].data = data;
		f->specs[i].len = len;
		f->specs[i].text = summary_spec_is_text(a->summary.specs[i],
		    data, len);
		f->nspecs++;
	}
	return 0;
}

void
summarize_close(struct summarize_files *f)
{
	size_t i;

	for (i = 0; i < f->nspecs; i++)
		free((void *)f->specs[i].data);
	free(f->specs);
	memset(f, 0, sizeof(*f));
}

/* --metrics-v2 a,b: the ids, empty ones dropped as upstream splits. */
static char **
summarize_ids(const char *list, size_t *n)
{
	char **v = NULL, **nv, *copy, *p, *q;

	*n = 0;
	if ((copy = strdup(list)) == NULL)
		return NULL;
	for (p = copy; p != NULL; p = q) {
		if ((q = strchr(p, ',')) != NULL)
			*q++ = '\0';
		if (*p == '\0')
			continue;
		if ((nv = reallocarray(v, *n + 1, sizeof(*v))) == NULL)
			break;
		v = nv;
		if ((v[*n] = strdup(p)) == NULL)
			break;
		(*n)++;
	}
	free(copy);
	return v;
}

int
summarize_run(struct tp *tp, const struct tp_args *a,
    const struct summarize_files *f, FILE *out)
{
	struct summary_req req;
	struct pbbuf w;
	char **ids = NULL, *err = NULL;
	size_t nids = 0, i;
	int rc = 0;

	memset(&req, 0, sizeof(req));
	req.specs = f->specs;
	req.nspecs = f->nspecs;
	if (a->summary.metrics_v2 != NULL &&
	    strcasecmp(a->summary.metrics_v2, "all") == 0)
		req.all_metrics = 1;
	else if (a->summary.metrics_v2 != NULL &&
	    *a->summary.metrics_v2 != '\0')
		ids = summarize_ids(a->summary.metrics_v2, &nids);
	req.ids = (const char *const *)ids;
	req.nids = nids;
	if (a->summary.metadata_query != NULL &&
	    *a->summary.metadata_query != '\0')
		req.metadata_query = a->summary.metadata_query;
	req.text = a->summary.format == NULL ||
	    strcmp(a->summary.format, "binary") != 0;
	pbb_init(&w);
	if (summary_compute(tp_db(tp), &req, &w, &err) == -1) {
		fprintf(stderr, "trace_processor: %s\n", err ? err : "?");
		rc = 1;
	} else if (a->query_file == NULL && w.len > 0 &&
	    (fwrite(w.buf, 1, w.len, out) != w.len || fflush(out) != 0))
		rc = 1;
	free(err);
	pbb_free(&w);
	for (i = 0; i < nids; i++)
		free(ids[i]);
	free(ids);
	return rc;
}
