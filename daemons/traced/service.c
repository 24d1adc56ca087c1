/*
 * The registry: connected producers and their data sources and trace
 * writers, connected consumers, and the global ids of central buffers.
 *
 * Producer ids are 16-bit and reused only after wrapping, skipping ids
 * still in use, so that a buffer never mixes two live producers under one
 * id. Buffer ids are what producers put in CommitData.target_buffer: a
 * producer may only use ids of sessions it has data source instances in.
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "libipc/ipc_host.h"
#include "traced.h"
#include "libshm/trace_buffer.h"
#include "protos/perfetto/common/data_source_descriptor.pb-c.h"

void
service_init(struct traced *svc, struct event_base *base)
{
	memset(svc, 0, sizeof(*svc));
	svc->base = base;
	svc->uid = getuid();
	TAILQ_INIT(&svc->producers);
	TAILQ_INIT(&svc->datasources);
	TAILQ_INIT(&svc->consumers);
	TAILQ_INIT(&svc->sessions);
	svc->next_buffer_id = 1;
}

void
service_shutdown(struct traced *svc)
{
	struct tconsumer	*c;
	struct tproducer	*p;
	struct tsession		*s;

	while ((c = TAILQ_FIRST(&svc->consumers)) != NULL)
		service_consumer_disconnect(c);
	while ((s = TAILQ_FIRST(&svc->sessions)) != NULL)
		session_free(s);
	while ((p = TAILQ_FIRST(&svc->producers)) != NULL)
		service_producer_disconnect(p);
	free(svc->trigger_hist);
}

struct tproducer *
service_producer_by_conn(struct traced *svc, uint64_t conn)
{
	struct tproducer	*p;

	TAILQ_FOREACH(p, &svc->producers, entry)
		if (p->conn_id == conn)
			return p;
	return NULL;
}

struct tproducer *
service_producer_by_id(struct traced *svc, uint16_t id)
{
	struct tproducer	*p;

	TAILQ_FOREACH(p, &svc->producers, entry)
		if (p->id == id)
			return p;
	return NULL;
}

struct tconsumer *
service_consumer_by_conn(struct traced *svc, uint64_t conn)
{
	struct tconsumer	*c;

	TAILQ_FOREACH(c, &svc->consumers, entry)
		if (c->conn_id == conn)
			return c;
	return NULL;
}

struct tsession *
service_session_by_id(struct traced *svc, uint64_t id)
{
	struct tsession	*s;

	TAILQ_FOREACH(s, &svc->sessions, entry)
		if (s->id == id)
			return s;
	return NULL;
}

/* ---- producers ------------------------------------------------------- */

struct tproducer *
service_producer_connect(struct traced *svc, uint64_t conn, uid_t uid,
    pid_t pid, const char *name, const char **cause)
{
	struct tproducer	*p;
	uint16_t		 id;

	if (svc->nproducers >= TRACED_MAX_PRODUCERS) {
		*cause = "too many producers";
		return NULL;
	}
	/* Next free id; there are fewer producers than ids. */
	id = svc->last_producer_id;
	do {
		if (++id == 0)
			id = 1;
	} while (service_producer_by_id(svc, id) != NULL);
	if ((p = calloc(1, sizeof(*p))) == NULL ||
	    (p->name = strdup(name ? name : "")) == NULL) {
		free(p);
		*cause = "out of memory";
		return NULL;
	}
	p->svc = svc;
	p->conn_id = conn;
	p->id = id;
	p->uid = uid;
	p->pid = pid;
	p->scraping = 1;
	svc->last_producer_id = id;
	svc->producers_seen++;
	TAILQ_INSERT_TAIL(&svc->producers, p, entry);
	svc->nproducers++;
	log_info("%s: producer %u \"%s\" (pid %d, uid %u) connected",
	    __func__, id, p->name, (int)pid, (unsigned)uid);
	return p;
}

void
service_producer_disconnect(struct tproducer *p)
{
	struct traced		*svc = p->svc;
	struct tdatasource	*ds, *next;
	struct tsession		*s;
	size_t			 i;

	log_info("%s: producer %u \"%s\" gone", __func__, p->id, p->name);
	/* Committed data stays; what is still in the SMB is scraped. */
	TAILQ_FOREACH(s, &svc->sessions, entry)
		commit_scrape(p, s);
	/* Nothing more will come: sequences stop waiting for it. */
	for (i = 1; i < TRACED_MAX_BUFFER_IDS; i++)
		if (svc->buffers[i] != NULL)
			trace_buffer_producer_gone(svc->buffers[i], p->id);
	TAILQ_FOREACH_SAFE(ds, &svc->datasources, entry, next)
		if (ds->producer == p) {
			session_datasource_removed(ds);
			TAILQ_REMOVE(&svc->datasources, ds, entry);
			svc->ndatasources--;
			free(ds->name);
			free(ds->desc);
			free(ds);
		}
	flush_producer_gone(p);
	if (p->cmds != NULL)
		ipc_reply_free(p->cmds);
	smb_free(p);
	TAILQ_REMOVE(&svc->producers, p, entry);
	svc->nproducers--;
	free(p->writers);
	free(p->name);
	free(p->sdk_version);
	free(p);
}

/* ---- data sources ---------------------------------------------------- */

static struct tdatasource *
service_datasource_find(struct tproducer *p, const char *name)
{
	struct tdatasource	*ds;

	TAILQ_FOREACH(ds, &p->svc->datasources, entry)
		if (ds->producer == p && strcmp(ds->name, name) == 0)
			return ds;
	return NULL;
}

static int
service_datasource_fill(struct tdatasource *ds, const uint8_t *desc,
    size_t len, const char **cause)
{
	Perfetto__Protos__DataSourceDescriptor	*d;
	uint8_t					*copy;

	d = perfetto__protos__data_source_descriptor__unpack(NULL, len, desc);
	if (d == NULL) {
		*cause = "malformed data source descriptor";
		return -1;
	}
	if (d->name == NULL || *d->name == '\0') {
		perfetto__protos__data_source_descriptor__free_unpacked(d,
		    NULL);
		*cause = "data source descriptor without a name";
		return -1;
	}
	if ((copy = malloc(len ? len : 1)) == NULL ||
	    (ds->name == NULL && (ds->name = strdup(d->name)) == NULL)) {
		free(copy);
		perfetto__protos__data_source_descriptor__free_unpacked(d,
		    NULL);
		*cause = "out of memory";
		return -1;
	}
	memcpy(copy, desc, len);
	free(ds->desc);
	ds->desc = copy;
	ds->desc_len = len;
	ds->id = d->has_id ? d->id : 0;
	ds->will_notify_on_start = d->has_will_notify_on_start &&
	    d->will_notify_on_start;
	ds->will_notify_on_stop = d->has_will_notify_on_stop &&
	    d->will_notify_on_stop;
	ds->handles_incremental_state_clear =
	    d->has_handles_incremental_state_clear &&
	    d->handles_incremental_state_clear;
	ds->no_flush = d->has_no_flush && d->no_flush;
	perfetto__protos__data_source_descriptor__free_unpacked(d, NULL);
	return 0;
}

int
service_datasource_register(struct tproducer *p, const uint8_t *desc,
    size_t len, const char **cause)
{
	struct traced		*svc = p->svc;
	struct tdatasource	*ds;

	if (p->ndatasources >= TRACED_MAX_DS_PER_PRODUCER ||
	    p->desc_bytes + len > TRACED_MAX_DESC_BYTES_PER_PRODUCER) {
		*cause = "too many data sources for one producer";
		return -1;
	}
	if ((ds = calloc(1, sizeof(*ds))) == NULL) {
		*cause = "out of memory";
		return -1;
	}
	ds->producer = p;
	if (service_datasource_fill(ds, desc, len, cause) == -1) {
		free(ds->name);
		free(ds);
		return -1;
	}
	if (service_datasource_find(p, ds->name) != NULL) {
		*cause = "data source already registered";
		free(ds->name);
		free(ds->desc);
		free(ds);
		return -1;
	}
	TAILQ_INSERT_TAIL(&svc->datasources, ds, entry);
	svc->ndatasources++;
	p->ndatasources++;
	p->desc_bytes += len;
	log_debug("%s: producer %u registered \"%s\"", __func__, p->id,
	    ds->name);
	session_datasource_added(ds);
	return 0;
}

/* UpdateDataSource: new descriptor, same name; instances keep running. */
int
service_datasource_update(struct tproducer *p, const uint8_t *desc,
    size_t len, const char **cause)
{
	Perfetto__Protos__DataSourceDescriptor	*d;
	struct tdatasource			*ds;
	int					 rc;

	d = perfetto__protos__data_source_descriptor__unpack(NULL, len, desc);
	if (d == NULL || d->name == NULL) {
		if (d != NULL)
			perfetto__protos__data_source_descriptor__free_unpacked(
			    d, NULL);
		*cause = "malformed data source descriptor";
		return -1;
	}
	ds = service_datasource_find(p, d->name);
	perfetto__protos__data_source_descriptor__free_unpacked(d, NULL);
	if (ds == NULL) {
		*cause = "no such data source registered";
		return -1;
	}
	rc = service_datasource_fill(ds, desc, len, cause);
	return rc;
}

int
service_datasource_unregister(struct tproducer *p, const char *name)
{
	struct tdatasource	*ds;

	if (name == NULL || (ds = service_datasource_find(p, name)) == NULL)
		return -1;
	session_datasource_removed(ds);
	TAILQ_REMOVE(&p->svc->datasources, ds, entry);
	p->svc->ndatasources--;
	p->ndatasources--;
	p->desc_bytes -= ds->desc_len;
	free(ds->name);
	free(ds->desc);
	free(ds);
	return 0;
}

/* ---- trace writers --------------------------------------------------- */

int
service_writer_register(struct tproducer *p, uint32_t id, uint32_t buffer)
{
	struct producer_writer	*w;
	size_t			 i;

	if (id == 0 || id > SHM_WRITER_ID_MAX || buffer >= UINT16_MAX)
		return -1;
	for (i = 0; i < p->nwriters; i++)
		if (p->writers[i].id == id) {
			p->writers[i].buffer = (uint16_t)buffer;
			return 0;
		}
	if (p->nwriters >= TRACED_MAX_WRITERS_PER_PRODUCER)
		return -1;
	w = reallocarray(p->writers, p->nwriters + 1, sizeof(*w));
	if (w == NULL)
		return -1;
	p->writers = w;
	w[p->nwriters].id = (uint16_t)id;
	w[p->nwriters].buffer = (uint16_t)buffer;
	p->nwriters++;
	return 0;
}

void
service_writer_unregister(struct tproducer *p, uint32_t id)
{
	size_t	i;

	for (i = 0; i < p->nwriters; i++)
		if (p->writers[i].id == id) {
			p->writers[i] = p->writers[--p->nwriters];
			return;
		}
}

/* Buffer a writer registered for, or -1 if it never registered. */
int
service_writer_buffer(const struct tproducer *p, uint16_t id)
{
	size_t	i;

	for (i = 0; i < p->nwriters; i++)
		if (p->writers[i].id == id)
			return p->writers[i].buffer;
	return -1;
}

/* May p write into global buffer id? Only through its own instances. */
int
service_producer_may_write(const struct tproducer *p, uint16_t buffer)
{
	if (buffer == 0 || buffer >= TRACED_MAX_BUFFER_IDS ||
	    p->svc->buffers[buffer] == NULL)
		return 0;
	return (p->allowed[buffer / 64] >> (buffer % 64)) & 1;
}

/*
 * As upstream's allowed_target_buffers: a grant made when a data source
 * of p is set up on buffer, revoked only when the buffer is freed, so
 * that commits a producer sends after StopDataSource (or after it
 * unregistered the data source) still land in the session.
 */
void
service_producer_allow(struct tproducer *p, uint16_t buffer)
{
	if (buffer == 0 || buffer >= TRACED_MAX_BUFFER_IDS)
		return;
	p->allowed[buffer / 64] |= 1ull << (buffer % 64);
}

/* ---- buffers ---------------------------------------------------------- */

/* Gives tb (new or cloned) a global id owned by session s. */
int
service_buffer_add(struct traced *svc, struct tsession *s,
    struct trace_buffer *tb, uint16_t *idp)
{
	uint16_t	id;
	size_t		tries;

	for (tries = 0, id = svc->next_buffer_id;
	    tries < TRACED_MAX_BUFFER_IDS; tries++) {
		if (id == 0 || id >= TRACED_MAX_BUFFER_IDS)
			id = 1;
		if (svc->buffers[id] == NULL)
			break;
		id++;
	}
	if (tries == TRACED_MAX_BUFFER_IDS)
		return -1;
	svc->buffers[id] = tb;
	svc->buffer_owner[id] = s;
	svc->nbuffers++;
	svc->next_buffer_id = (uint16_t)(id + 1);
	*idp = id;
	return 0;
}

int
service_buffer_alloc(struct traced *svc, struct tsession *s, size_t size,
    int discard, uint16_t *idp)
{
	struct trace_buffer	*tb;
	const char		*cause;

	tb = trace_buffer_new(size, discard ? TRACE_BUFFER_DISCARD :
	    TRACE_BUFFER_RING, &cause);
	if (tb == NULL) {
		log_warnx("%s: %s", __func__, cause);
		return -1;
	}
	if (service_buffer_add(svc, s, tb, idp) == -1) {
		trace_buffer_free(tb);
		return -1;
	}
	return 0;
}

void
service_buffer_free(struct traced *svc, uint16_t id)
{
	struct tproducer	*p;

	if (id == 0 || id >= TRACED_MAX_BUFFER_IDS || svc->buffers[id] == NULL)
		return;
	/* The id may be reused by another session: grants end here. */
	TAILQ_FOREACH(p, &svc->producers, entry)
		p->allowed[id / 64] &= ~(1ull << (id % 64));
	trace_buffer_free(svc->buffers[id]);
	svc->buffers[id] = NULL;
	svc->buffer_owner[id] = NULL;
	svc->nbuffers--;
}

/* ---- consumers ------------------------------------------------------- */

struct tconsumer *
service_consumer_connect(struct traced *svc, uint64_t conn, uid_t uid,
    pid_t pid)
{
	struct tconsumer	*c;

	if ((c = calloc(1, sizeof(*c))) == NULL)
		return NULL;
	c->svc = svc;
	c->conn_id = conn;
	c->uid = uid;
	c->pid = pid;
	TAILQ_INSERT_TAIL(&svc->consumers, c, entry);
	log_debug("%s: consumer pid %d uid %u", __func__, (int)pid,
	    (unsigned)uid);
	return c;
}

/* A consumer gone: its session goes too, unless detached. */
void
service_consumer_disconnect(struct tconsumer *c)
{
	if (c->session != NULL) {
		c->session->consumer = NULL;
		session_free(c->session);
		c->session = NULL;
	}
	consumer_port_consumer_gone(c);
	TAILQ_REMOVE(&c->svc->consumers, c, entry);
	free(c);
}
