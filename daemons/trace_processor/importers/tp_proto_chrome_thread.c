/*
 * ChromeThreadDescriptor (a thread track descriptor's chrome_thread): the
 * thread's Chrome type names it, below the descriptor's own name, and a
 * sandboxed tid (unique only within its process) is made unique with its
 * pid, as upstream.
 */
#include <string.h>

#include "pbdec.h"
#include "tp_int.h"

/* Names by Chrome's ThreadType; the numbers 43 to 49 are unassigned. */
static const char *const thread_names[] = {
	NULL, "CrProcessMain", "ChromeIOThread",
	"ThreadPoolBackgroundWorker&", "ThreadPoolForegroundWorker&",
	"ThreadPoolSingleThreadForegroundBlocking&",
	"ThreadPoolSingleThreadBackgroundBlocking&", "ThreadPoolService",
	"Compositor", "VizCompositorThread", "CompositorTileWorker&",
	"ServiceWorkerThread&", "NetworkService", "Chrome_ChildIOThread",
	"Chrome_IOThread", "CrBrowserMain", "CrRendererMain",
	"CrUtilityMain", "CrGpuMain", "CacheThread_BlockFile", "Media",
	"AudioOutputDevice", "AudioInputDevice", "GpuMemoryThread",
	"GpuVSyncThread", "DXVAVideoDecoderThread", "BrowserWatchdog",
	"WebRTC_Network", "Window owner thread", "WebRTC_Signaling",
	"WebRTC_Worker", "CrPPAPIMain", "GpuWatchdog", "swapper",
	"Gamepad polling thread", "WebCrypto", "Database thread",
	"Proxy Resolver", "Chrome_DevToolsADBThread", "NetworkConfigWatcher",
	"wasapi_render_thread", "LoaderLockSampler", "VSyncThread",
	NULL, NULL, NULL, NULL, NULL, NULL, NULL,
	"MemoryInfra", "StackSamplingProfiler", "CompositorGpuThread",
};

#define NELEM(a)	(sizeof(a) / sizeof((a)[0]))

static const char *
thread_name(uint64_t type)
{
	return type < NELEM(thread_names) ? thread_names[type] : NULL;
}

int64_t
tp_chrome_synthetic_tid(int64_t tid, int64_t pid)
{
	/* The pid in the high half, as upstream: unsigned, so that no
	 * shift of a negative value is undefined. */
	return (int64_t)(((uint64_t)pid << 32) | (uint64_t)tid);
}

int
tp_chrome_tid_sandboxed_untrusted(const uint8_t *desc, size_t len)
{
	struct pb it, ct;
	struct pb_field f, cf;
	int sandboxed = 0;

	pb_init(&it, desc, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		if (f.id != 7 || f.wire != PB_LEN)
			continue;
		pb_init(&ct, f.data, f.len);
		while (pb_next_untrusted(&ct, &cf) == 1)
			if (cf.id == 3 && cf.wire == PB_VARINT)
				sandboxed = cf.u != 0;
	}
	return sandboxed;
}

void
tp_chrome_thread_untrusted(struct tp *tp, int64_t utid, const uint8_t *buf,
    size_t len)
{
	struct pb it;
	struct pb_field f;
	const char *name;

	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1)
		if (f.id == 1 && f.wire == PB_VARINT &&
		    (name = thread_name(f.u)) != NULL)
			tp_thread_set_name(tp, utid, name, strlen(name),
			    TP_NAME_CHROME_TYPE);
}
