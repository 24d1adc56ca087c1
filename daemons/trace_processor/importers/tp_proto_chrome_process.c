/*
 * ChromeProcessDescriptor (a process track descriptor's chrome_process):
 * the process's Chrome type as its name and as an arg, the WebView host
 * app and the crash trace id as args, as upstream keeps them. The args
 * are written at the end: a descriptor sent again replaces what it says
 * again, as upstream updates them by key.
 */
#include <stdlib.h>
#include <string.h>

#include "pbdec.h"
#include "tp_int.h"
#include "tp_proto.h"

/* Chrome's name of each chrome_enums.ProcessType (the enum's own name
 * when Chrome has none); NULL: none. */
static const char *const process_types[] = {
	[1] = "Browser",
	[2] = "Renderer",
	[3] = "Utility",
	[4] = "SandboxHelper",
	[5] = "PROCESS_SANDBOX_HELPER",
	[6] = "Gpu",
	[7] = "PpapiPlugin",
	[8] = "PpapiBroker",
	[9] = "Service: network.mojom.NetworkService",
	[10] = "Service: tracing.mojom.TracingService",
	[11] = "Service: storage.mojom.StorageService",
	[12] = "Service: audio.mojom.AudioService",
	[13] = "Service: data_decoder.mojom.DataDecoderService",
	[14] = "Service: chrome.mojom.UtilWin",
	[15] = "Service: proxy_resolver.mojom.ProxyResolverFactory",
	[16] = "Service: media.mojom.CdmServiceBroker",
	[17] = "Service: video_capture.mojom.VideoCaptureService",
	[18] = "Service: unzip.mojom.Unzipper",
	[19] = "Service: mirroring.mojom.MirroringService",
	[20] = "Service: patch.mojom.FilePatcher",
	[21] = "Service: chromeos.tts.mojom.TtsService",
	[22] = "Service: printing.mojom.PrintingService",
	[23] = "Service: quarantine.mojom.Quarantine",
	[24] = "Service: chromeos.local_search_service.mojom.LocalSearchService",
	[25] = "Service: chromeos.assistant.mojom.AssistantAudioDecoderFactory",
	[26] = "Service: chrome.mojom.FileUtilService",
	[27] = "Service: printing.mojom.PrintCompositor",
	[28] = "Service: paint_preview.mojom.PaintPreviewCompositorCollection",
	[29] = "Service: media.mojom.SpeechRecognitionService",
	[30] = "Service: device.mojom.XRDeviceService",
	[31] = "Service: chrome.mojom.UtilReadIcon",
	[32] = "Service: language_detection.mojom.LanguageDetectionService",
	[33] = "Service: sharing.mojom.Sharing",
	[34] = "Service: chrome.mojom.MediaParserFactory",
	[35] = "Service: qrcode_generator.mojom.QRCodeService",
	[36] = "Service: chrome.mojom.ProfileImport",
	[37] = "Service: chromeos.ime.mojom.ImeService",
	[38] = "Service: recording.mojom.RecordingService",
	[39] = "Service: shape_detection.mojom.ShapeDetectionService",
	[40] = "Extension Renderer",
	[41] = "Service: media.mojom.MediaFoundationServiceBroker",
	[42] = "PROCESS_RENDERER_TOP_WEBUI",
};

#define PT_RENDERER		2
#define PT_RENDERER_EXTENSION	40

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
tp_proto_chrome_process(struct tp *tp, int64_t upid, const uint8_t *buf,
    size_t len)
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
	cp->type = type < sizeof(process_types) / sizeof(process_types[0]) ?
	    process_types[type] : NULL;
	if (cp->type != NULL)
		tp_process_set_name(tp, upid, cp->type, strlen(cp->type),
		    type == PT_RENDERER ||
		    type == PT_RENDERER_EXTENSION ?
		    TP_PNAME_CHROME_RENDERER : TP_PNAME_CHROME_LABEL);
}

void
tp_proto_chrome_process_end(struct tp *tp)
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
	tp_proto_chrome_process_free(tp);
}

void
tp_proto_chrome_process_free(struct tp *tp)
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
