/*
 * Chrome's descriptors of its processes and threads (ChromeProcessDescriptor,
 * ChromeThreadDescriptor in a TrackDescriptor): the process or thread type
 * names it, as upstream names it, the process keeps its type as the arg
 * chrome.process_type (written at the end), and a sandboxed thread's tid
 * is made unique.
 */
#include <stdlib.h>
#include <string.h>

#include "pbdec.h"
#include "tp_int.h"

/*
 * Names by Chrome's ProcessType (chrome_enums.proto): a readable name
 * where upstream has one, else the enum's own name; 0 names nothing.
 */
static const char *const process_names[] = {
	NULL, "Browser", "Renderer", "Utility", "SandboxHelper",
	"PROCESS_SANDBOX_HELPER", "Gpu", "PpapiPlugin", "PpapiBroker",
	"Service: network.mojom.NetworkService",
	"Service: tracing.mojom.TracingService",
	"Service: storage.mojom.StorageService",
	"Service: audio.mojom.AudioService",
	"Service: data_decoder.mojom.DataDecoderService",
	"Service: chrome.mojom.UtilWin",
	"Service: proxy_resolver.mojom.ProxyResolverFactory",
	"Service: media.mojom.CdmServiceBroker",
	"Service: video_capture.mojom.VideoCaptureService",
	"Service: unzip.mojom.Unzipper",
	"Service: mirroring.mojom.MirroringService",
	"Service: patch.mojom.FilePatcher",
	"Service: chromeos.tts.mojom.TtsService",
	"Service: printing.mojom.PrintingService",
	"Service: quarantine.mojom.Quarantine",
	"Service: chromeos.local_search_service.mojom.LocalSearchService",
	"Service: chromeos.assistant.mojom.AssistantAudioDecoderFactory",
	"Service: chrome.mojom.FileUtilService",
	"Service: printing.mojom.PrintCompositor",
	"Service: paint_preview.mojom.PaintPreviewCompositorCollection",
	"Service: media.mojom.SpeechRecognitionService",
	"Service: device.mojom.XRDeviceService",
	"Service: chrome.mojom.UtilReadIcon",
	"Service: language_detection.mojom.LanguageDetectionService",
	"Service: sharing.mojom.Sharing",
	"Service: chrome.mojom.MediaParserFactory",
	"Service: qrcode_generator.mojom.QRCodeService",
	"Service: chrome.mojom.ProfileImport",
	"Service: chromeos.ime.mojom.ImeService",
	"Service: recording.mojom.RecordingService",
	"Service: shape_detection.mojom.ShapeDetectionService",
	"Extension Renderer",
	"Service: media.mojom.MediaFoundationServiceBroker",
	"PROCESS_RENDERER_TOP_WEBUI",
};
#define PROCESS_RENDERER		2
#define PROCESS_RENDERER_EXTENSION	40

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
process_name(uint64_t type)
{
	return type < NELEM(process_names) ? process_names[type] : NULL;
}

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

/*
 * What Chrome said of a process, kept until the end: a descriptor sent
 * again replaces what it says again (upstream updates the args by key).
 */
struct chrome_proc {
	int64_t		 upid;
	const char	*type;		/* static; NULL: unnamed */
	char		*host;		/* host_app_package_name */
	int		 has_crash_id;
	uint64_t	 crash_id;
};

struct tp_chrome {
	struct chrome_proc	*procs;
	size_t			 n, cap;
	struct tp_hash		 by_upid;	/* upid -> index */
};

static struct chrome_proc *
chrome_proc_get(struct tp *tp, int64_t upid)
{
	struct tp_chrome *c = tp->chrome;
	struct chrome_proc *cp;
	uint64_t *idx;

	if (c == NULL && (c = tp->chrome = calloc(1, sizeof(*c))) == NULL)
		return NULL;
	if ((idx = tp_hash_get(&c->by_upid, (uint64_t)upid)) != NULL)
		return &c->procs[*idx];
	if (tp_grow((void **)&c->procs, &c->cap, c->n, sizeof(*c->procs)) ==
	    -1)
		return NULL;
	if (tp_hash_put(&c->by_upid, (uint64_t)upid, c->n) == -1)
		return NULL;
	cp = &c->procs[c->n++];
	memset(cp, 0, sizeof(*cp));
	cp->upid = upid;
	return cp;
}

void
tp_chrome_process_untrusted(struct tp *tp, int64_t upid,
    const uint8_t *buf, size_t len)
{
	struct chrome_proc *cp;
	struct pb it;
	struct pb_field f;
	uint64_t type = 0;

	if ((cp = chrome_proc_get(tp, upid)) == NULL)
		return;
	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		if (f.id == 1 && f.wire == PB_VARINT)
			type = f.u;
		else if (f.id == 4 && f.wire == PB_LEN)
			tp_setstr(&cp->host, (const char *)f.data, f.len);
		else if (f.id == 5 && f.wire == PB_VARINT) {
			cp->crash_id = f.u;
			cp->has_crash_id = 1;
		}
	}
	cp->type = process_name(type);
	if (cp->type != NULL)
		tp_process_set_name(tp, upid, cp->type, strlen(cp->type),
		    type == PROCESS_RENDERER ||
		    type == PROCESS_RENDERER_EXTENSION ?
		    TP_PNAME_CHROME_RENDERER : TP_PNAME_CHROME_LABEL);
}

void
tp_chrome_end(struct tp *tp)
{
	struct tp_chrome *c = tp->chrome;
	size_t i;

	for (i = 0; c != NULL && i < c->n; i++) {
		struct chrome_proc *cp = &c->procs[i];
		int64_t set = tp_process_arg_set(tp, cp->upid);

		/* Said even when unnamed: it marks a Chrome process. */
		if (cp->type != NULL)
			tp_arg_str(tp, set, "chrome.process_type",
			    "chrome.process_type", cp->type,
			    strlen(cp->type), NULL);
		else
			tp_arg_str_null(tp, set, "chrome.process_type");
		if (cp->host != NULL)
			tp_arg_str(tp, set, "chrome.host_app_package_name",
			    "chrome.host_app_package_name", cp->host,
			    strlen(cp->host), NULL);
		if (cp->has_crash_id)
			tp_arg_int(tp, set, "chrome.crash_trace_id",
			    "chrome.crash_trace_id", (int64_t)cp->crash_id,
			    "uint");
	}
	tp_chrome_free(tp);
}

void
tp_chrome_free(struct tp *tp)
{
	struct tp_chrome *c = tp->chrome;

	if (c == NULL)
		return;
	while (c->n > 0)
		free(c->procs[--c->n].host);
	free(c->procs);
	tp_hash_free(&c->by_upid);
	free(c);
	tp->chrome = NULL;
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
