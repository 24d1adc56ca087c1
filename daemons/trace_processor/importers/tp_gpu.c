/*
 * GPUs as upstream numbers them: each GPU id a row of the gpu table, its
 * ugpu, in the order first seen; and each GPU's "gpufreq" counter (kHz),
 * whatever says it (ftrace power/gpu_frequency and kgsl_gpu_frequency,
 * SysStats, generic kernel events).
 */
#include <stdlib.h>

#include "tp_hash.h"
#include "tp_int.h"

#define EV_GPU_FREQUENCY	332
#define EV_KGSL_GPU_FREQUENCY	509

struct tp_gpus {
	struct tp_hash	 ugpu;		/* GPU id -> its gpu row */
	int64_t		 n;
};

int64_t
tp_gpu_get(struct tp *tp, uint32_t gpu)
{
	struct tp_gpus *g = tp->gpus;
	uint64_t *v;

	if (g == NULL) {
		if ((g = tp->gpus = calloc(1, sizeof(*g))) == NULL)
			return -1;
		tp_hash_init(&g->ugpu);
	}
	if ((v = tp_hash_get(&g->ugpu, gpu)) != NULL)
		return (int64_t)*v;
	if (tp_gpu_insert(tp, g->n, gpu) == -1 ||
	    tp_hash_put(&g->ugpu, gpu, (uint64_t)g->n) == -1)
		return -1;
	return g->n++;
}

void
tp_gpu_frequency(struct tp *tp, int64_t ts, uint32_t gpu, double khz)
{
	int64_t ugpu = tp_gpu_get(tp, gpu), track;
	struct tp_dim dims[2] = { { "ugpu", NULL, ugpu },
	    { "gpu", NULL, gpu } };

	if (ugpu < 0 || (track = tp_track_intern_dimv(tp, TT_COUNTER, NULL,
	    "gpufreq", TP_NULL, dims, 2, NULL)) < 0)
		return;
	tp_track_kind(tp, track, "gpu_frequency");
	tp_track_unit(tp, track, "kHz");
	tp_counter_insert(tp, ts, track, khz, TP_NULL);
}

int
tp_gpu_ftrace_event(struct tp *tp, int64_t ts, uint32_t cpu, int64_t pid,
    uint32_t evid, const struct tp_ftrace_ev *e)
{
	(void)cpu;
	(void)pid;
	switch (evid) {
	case EV_GPU_FREQUENCY:
		/* gpu_id 1, state 2 */
		tp_gpu_frequency(tp, ts, (uint32_t)e->v[1],
		    (double)(uint32_t)e->v[2]);
		return 1;
	case EV_KGSL_GPU_FREQUENCY:
		/* gpu_freq 1 (MHz), gpu_id 2 */
		tp_gpu_frequency(tp, ts, (uint32_t)e->v[2],
		    (double)(uint32_t)e->v[1] * 1000.0);
		return 1;
	}
	return 0;
}

void
tp_gpus_free(struct tp *tp)
{
	if (tp->gpus == NULL)
		return;
	tp_hash_free(&tp->gpus->ugpu);
	free(tp->gpus);
	tp->gpus = NULL;
}
