/*
 * TrackEvent in C: slices, instants, counters, flows and debug annotations
 * on thread, process and custom tracks, recorded by the "track_event" data
 * source and shown by the Perfetto UI and trace_processor.
 *
 * Categories are declared once per app with an X-macro list:
 *
 *   #define APP_CATEGORIES(C)                                   \
 *           C(render, "render", "Frame rendering", NULL)        \
 *           C(io, "io", "Disk and network", "slow")
 *
 *   FARO_TE_CATEGORIES_DECLARE(APP_CATEGORIES)     in a header
 *   FARO_TE_CATEGORIES_DEFINE(APP_CATEGORIES)      in one .c file
 *   FARO_TE_REGISTER(APP_CATEGORIES);              after faro_init
 *
 * The third field is a description, the fourth a comma-separated tag list
 * (or NULL). Each session enables categories from its TrackEventConfig as
 * upstream does: exact names first, then "prefix*" patterns, then "*";
 * enabled_categories, disabled_categories, disabled_tags (default "slow"
 * and "debug" when no tag list is given), enabled_tags.
 *
 * Events:
 *
 *   FARO_TE_BEGIN(render, "draw", FARO_ARG_INT("frame", n));
 *   FARO_TE_END(render);
 *   FARO_TE_SCOPED(render, "layout");            ends at scope exit
 *   FARO_TE_INSTANT(io, "open", FARO_ARG_STRING("path", p));
 *   FARO_TE_COMPLETE(io, "read", start_ns, dur_ns);
 *   FARO_TE_COUNTER_INT(render, &fps_track, 60);
 *   FARO_TE_COUNTER_DOUBLE(render, &load_track, 0.5);
 *
 * Extras after the name: FARO_ARG_BOOL/INT/UINT/DOUBLE/STRING/PTR(name, v),
 * FARO_ARG_DICT_BEGIN(name) ... FARO_ARG_DICT_END() for nested
 * dictionaries, FARO_ARG_ARRAY_BEGIN(name) ... FARO_ARG_ARRAY_END() for
 * arrays (their elements' names are ignored: pass NULL; dictionaries and
 * arrays nest up to 6 deep), FARO_FLOW(id), FARO_TERMINATING_FLOW(id),
 * FARO_ON_TRACK(&t) for a custom track, FARO_TIMESTAMP(ns) for an
 * explicit time (CLOCK_BOOTTIME, as faro_now_ns).
 *
 * Categories known only at run time: faro_te_category_dynamic("name")
 * returns one (look it up once and keep it), which sessions enable by the
 * same rules; the FARO_TE_*_C macros take such a pointer:
 *
 *   struct faro_te_category *c = faro_te_category_dynamic(plugin_name);
 *   FARO_TE_BEGIN_C(c, "load", FARO_ARG_STRING("file", path));
 *   FARO_TE_END_C(c);
 *
 * A session whose TrackEventConfig sets enable_thread_time_sampling gets
 * the thread's CPU time with every event on a thread track, on a
 * "thread_time" counter track (extra_counter_track_uuids, as upstream).
 * faro_thread_track_name("decoder 2") names the calling thread's track.
 *
 * Event, category and argument names must be strings that live as long
 * as the process (literals): they are interned by address. Use
 * FARO_DYNAMIC_NAME() (before other extras) for a name built at run time.
 *
 * A disabled category costs one load and one predictable branch: the
 * category's 'enabled' word is a bitmask of the sessions that want it.
 */
#ifndef FARO_TRACK_EVENT_H
#define FARO_TRACK_EVENT_H

#include <stddef.h>
#include <stdint.h>

#include <faro/faro.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A category; the app defines them with the macros below. */
struct faro_te_category {
	uint32_t	 enabled;	/* bit i: session instance i wants it */
	uint32_t	 index;		/* set at registration */
	const char	*name;
	const char	*description;
	const char	*tags;		/* "a,b" or NULL */
	uint64_t	 reserved[2];
};

/*
 * A custom track (a named timeline) or counter track. Initialize once
 * with faro_track_init or faro_counter_track_init; the descriptor is
 * emitted on each sequence that uses it.
 */
struct faro_track {
	uint64_t	 uuid;
	uint64_t	 parent_uuid;	/* 0: the process track */
	const char	*name;
	int		 is_counter;
	const char	*unit_name;	/* counters, or NULL */
	uint64_t	 reserved[2];
};

/* A track named 'name' under the process (parent NULL) or 'parent'. */
void	faro_track_init(struct faro_track *, const char *name,
	    const struct faro_track *parent);
/* The same with an explicit uuid (e.g. to share a track across threads). */
void	faro_track_init_uuid(struct faro_track *, uint64_t uuid,
	    const char *name, const struct faro_track *parent);
/* A counter track under the process; unit_name may be NULL. */
void	faro_counter_track_init(struct faro_track *, const char *name,
	    const char *unit_name);
/* uuids of this process's and the calling thread's own tracks. */
uint64_t faro_process_track_uuid(void);
uint64_t faro_thread_track_uuid(void);

/* Registers the app's categories (after faro_init). 0 or -1. */
int	faro_te_register(struct faro_te_category *const *, size_t n);

/*
 * The category named 'name', made and registered on first use (after
 * faro_init); NULL when out of memory. Valid until faro_shutdown.
 */
struct faro_te_category *faro_te_category_dynamic(const char *name);

/* Names the calling thread's track (copied; at most 63 bytes kept). */
void	faro_thread_track_name(const char *name);

/* ---- extras ---- */

enum faro_te_arg_kind {
	FARO_TA_END_ = 0,
	FARO_TA_BOOL, FARO_TA_INT, FARO_TA_UINT, FARO_TA_DOUBLE,
	FARO_TA_STRING, FARO_TA_PTR, FARO_TA_DICT_BEGIN, FARO_TA_DICT_END,
	FARO_TA_FLOW, FARO_TA_TERMINATING_FLOW, FARO_TA_TRACK,
	FARO_TA_TIMESTAMP, FARO_TA_DYNAMIC_NAME, FARO_TA_ARRAY_BEGIN,
	FARO_TA_ARRAY_END,
};

struct faro_te_arg {
	int		 kind;
	const char	*name;
	union {
		int64_t			 i;
		uint64_t		 u;
		double			 d;
		const char		*s;
		const void		*p;
		const struct faro_track	*t;
	} v;
};

#define FARO_ARG_BOOL(n, x)	{ FARO_TA_BOOL, (n), { .i = !!(x) } }
#define FARO_ARG_INT(n, x)	{ FARO_TA_INT, (n), { .i = (int64_t)(x) } }
#define FARO_ARG_UINT(n, x)	{ FARO_TA_UINT, (n), { .u = (uint64_t)(x) } }
#define FARO_ARG_DOUBLE(n, x)	{ FARO_TA_DOUBLE, (n), { .d = (double)(x) } }
#define FARO_ARG_STRING(n, x)	{ FARO_TA_STRING, (n), { .s = (x) } }
#define FARO_ARG_PTR(n, x)	{ FARO_TA_PTR, (n), { .p = (x) } }
#define FARO_ARG_DICT_BEGIN(n)	{ FARO_TA_DICT_BEGIN, (n), { .u = 0 } }
#define FARO_ARG_DICT_END()	{ FARO_TA_DICT_END, NULL, { .u = 0 } }
#define FARO_ARG_ARRAY_BEGIN(n)	{ FARO_TA_ARRAY_BEGIN, (n), { .u = 0 } }
#define FARO_ARG_ARRAY_END()	{ FARO_TA_ARRAY_END, NULL, { .u = 0 } }
#define FARO_FLOW(id)		{ FARO_TA_FLOW, NULL, { .u = (uint64_t)(id) } }
#define FARO_TERMINATING_FLOW(id) \
	{ FARO_TA_TERMINATING_FLOW, NULL, { .u = (uint64_t)(id) } }
#define FARO_ON_TRACK(trk)	{ FARO_TA_TRACK, NULL, { .t = (trk) } }
#define FARO_TIMESTAMP(ns)	{ FARO_TA_TIMESTAMP, NULL, { .u = (uint64_t)(ns) } }
#define FARO_DYNAMIC_NAME()	{ FARO_TA_DYNAMIC_NAME, NULL, { .u = 0 } }
#define FARO_TE_ARGS_END_	{ FARO_TA_END_, NULL, { .u = 0 } }

/* TrackEvent.Type values. */
#define FARO_TE_TYPE_BEGIN	1
#define FARO_TE_TYPE_END	2
#define FARO_TE_TYPE_INSTANT	3
#define FARO_TE_TYPE_COUNTER	4

/* The slow path behind the macros: writes one event for every session. */
void	faro_te_emit(struct faro_te_category *, int type, const char *name,
	    const struct faro_te_arg *args);
void	faro_te_counter(struct faro_te_category *, const struct faro_track *,
	    int is_double, int64_t i, double d);

/* ---- categories ---- */

#define FARO_TE_CAT_DECL_(id, n, d, t)	extern struct faro_te_category faro_cat_##id;
#define FARO_TE_CAT_DEF_(id, n, d, t) \
	struct faro_te_category faro_cat_##id = { 0, 0, n, d, t, { 0, 0 } };
#define FARO_TE_CAT_PTR_(id, n, d, t)	&faro_cat_##id,

#define FARO_TE_CATEGORIES_DECLARE(L)	L(FARO_TE_CAT_DECL_)	\
	extern struct faro_te_category *const faro_catlist_##L[];	\
	extern const size_t faro_ncat_##L;
#define FARO_TE_CATEGORIES_DEFINE(L)	L(FARO_TE_CAT_DEF_)	\
	struct faro_te_category *const faro_catlist_##L[] = {	\
		L(FARO_TE_CAT_PTR_) NULL };			\
	const size_t faro_ncat_##L = sizeof(faro_catlist_##L) /	\
	    sizeof(faro_catlist_##L[0]) - 1;
#define FARO_TE_REGISTER(L)	faro_te_register(faro_catlist_##L, faro_ncat_##L)

#if defined(__GNUC__) || defined(__clang__)
#define FARO_UNLIKELY_(x)	__builtin_expect(!!(x), 0)
#define FARO_TE_ENABLED_P_(p) \
	FARO_UNLIKELY_(__atomic_load_n(&(p)->enabled, __ATOMIC_RELAXED))
#else
#define FARO_UNLIKELY_(x)	(x)
#define FARO_TE_ENABLED_P_(p)	(*(volatile uint32_t *)&(p)->enabled)
#endif
#define FARO_TE_ENABLED(cat)	FARO_TE_ENABLED_P_(&faro_cat_##cat)

/* ---- events ---- */

#define FARO_TE_EMIT_(cat, type, name, ...) \
	FARO_TE_EMIT_C_(&faro_cat_##cat, type, name, __VA_ARGS__)
#define FARO_TE_EMIT_C_(catp, type, name, ...) do {			\
	struct faro_te_category *faro_c_ = (catp);			\
	if (faro_c_ != NULL && FARO_TE_ENABLED_P_(faro_c_)) {		\
		const struct faro_te_arg faro_args_[] = { __VA_ARGS__ };\
		faro_te_emit(faro_c_, (type), (name), faro_args_);	\
	}								\
} while (0)

/* The same on a category pointer (faro_te_category_dynamic). */
#define FARO_TE_BEGIN_C(catp, ...) \
	FARO_TE_EMIT_C_(catp, FARO_TE_TYPE_BEGIN, __VA_ARGS__, FARO_TE_ARGS_END_)
#define FARO_TE_END_C(...)	FARO_TE_END_C_(__VA_ARGS__, FARO_TE_ARGS_END_)
#define FARO_TE_END_C_(catp, ...) \
	FARO_TE_EMIT_C_(catp, FARO_TE_TYPE_END, NULL, __VA_ARGS__)
#define FARO_TE_INSTANT_C(catp, ...) \
	FARO_TE_EMIT_C_(catp, FARO_TE_TYPE_INSTANT, __VA_ARGS__,	\
	FARO_TE_ARGS_END_)

/* FARO_TE_BEGIN(cat, "name", extras...) */
#define FARO_TE_BEGIN(cat, ...) \
	FARO_TE_EMIT_(cat, FARO_TE_TYPE_BEGIN, __VA_ARGS__, FARO_TE_ARGS_END_)
/* FARO_TE_END(cat, extras...) */
#define FARO_TE_END(...)	FARO_TE_END_(__VA_ARGS__, FARO_TE_ARGS_END_)
#define FARO_TE_END_(cat, ...) \
	FARO_TE_EMIT_(cat, FARO_TE_TYPE_END, NULL, __VA_ARGS__)
/* FARO_TE_INSTANT(cat, "name", extras...) */
#define FARO_TE_INSTANT(cat, ...) \
	FARO_TE_EMIT_(cat, FARO_TE_TYPE_INSTANT, __VA_ARGS__, FARO_TE_ARGS_END_)

/* A slice that already happened: [start_ns, start_ns + dur_ns). */
#define FARO_TE_COMPLETE(cat, ...) \
	FARO_TE_COMPLETE_(cat, __VA_ARGS__, FARO_TE_ARGS_END_)
#define FARO_TE_COMPLETE_(cat, name, start_ns, dur_ns, ...) do {	\
	if (FARO_TE_ENABLED(cat)) {					\
		uint64_t faro_s_ = (start_ns), faro_d_ = (dur_ns);	\
		const struct faro_te_arg faro_a1_[] = {			\
		    FARO_TIMESTAMP(faro_s_), __VA_ARGS__ };		\
		const struct faro_te_arg faro_a2_[] = {			\
		    FARO_TIMESTAMP(faro_s_ + faro_d_), FARO_TE_ARGS_END_ };\
		faro_te_emit(&faro_cat_##cat, FARO_TE_TYPE_BEGIN, (name),\
		    faro_a1_);						\
		faro_te_emit(&faro_cat_##cat, FARO_TE_TYPE_END, NULL,	\
		    faro_a2_);						\
	}								\
} while (0)

#define FARO_TE_COUNTER_INT(cat, track, v) do {				\
	if (FARO_TE_ENABLED(cat))					\
		faro_te_counter(&faro_cat_##cat, (track), 0,		\
		    (int64_t)(v), 0);					\
} while (0)
#define FARO_TE_COUNTER_DOUBLE(cat, track, v) do {			\
	if (FARO_TE_ENABLED(cat))					\
		faro_te_counter(&faro_cat_##cat, (track), 1, 0,		\
		    (double)(v));					\
} while (0)

/* Scoped slices (GCC and clang): the end is emitted at scope exit. */
struct faro_te_scope {
	struct faro_te_category	*cat;
};
static inline void
faro_te_scope_end_(struct faro_te_scope *s)
{
	static const struct faro_te_arg end[] = { FARO_TE_ARGS_END_ };

	if (FARO_UNLIKELY_(__atomic_load_n(&s->cat->enabled,
	    __ATOMIC_RELAXED)))
		faro_te_emit(s->cat, FARO_TE_TYPE_END, NULL, end);
}
#define FARO_TE_CAT2_(a, b)	a##b
#define FARO_TE_CAT_(a, b)	FARO_TE_CAT2_(a, b)
#define FARO_TE_SCOPED(cat, ...)					\
	FARO_TE_BEGIN(cat, __VA_ARGS__);				\
	struct faro_te_scope FARO_TE_CAT_(faro_scope_, __LINE__)	\
	    __attribute__((cleanup(faro_te_scope_end_), unused)) =	\
	    { &faro_cat_##cat }

#ifdef __cplusplus
}
#endif

#endif
