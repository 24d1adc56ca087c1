/*
 * ChromeProcessDescriptor (a process track descriptor's chrome_process):
 * the process's Chrome type as its name and as an arg, the WebView host
 * app and the crash trace id as args, as upstream keeps them.
 */
#include <string.h>

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

void
tp_proto_chrome_process(struct tp *tp, int64_t upid, const uint8_t *buf,
    size_t len)
{
	struct tp_process *p = &tp->procs[upid];
	struct pb it;
	struct pb_field f;
	const char *type = NULL;
	const uint8_t *host = NULL;
	size_t hostlen = 0;
	uint64_t crash = 0, ptype = 0;
	int has_crash = 0;

	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		if (f.id == 1 && f.wire == PB_VARINT)
			ptype = f.u;
		else if (f.id == 4 && f.wire == PB_LEN) {
			host = f.data;
			hostlen = f.len;
		} else if (f.id == 5 && f.wire == PB_VARINT) {
			crash = f.u;
			has_crash = 1;
		}
	}
	if (it.err)
		return;
	if (ptype < sizeof(process_types) / sizeof(process_types[0]))
		type = process_types[ptype];
	/* A renderer's label outranks a descriptor's name; others not. */
	if (type != NULL)
		tp_process_set_name(tp, upid, type, strlen(type),
		    ptype == PT_RENDERER || ptype == PT_RENDERER_EXTENSION ?
		    TP_PNAME_CHROME_RENDERER : TP_PNAME_CHROME_LABEL);
	if (p->arg_set_id == TP_NULL)
		p->arg_set_id = tp_arg_set_new(tp);
	/* For telling Chrome's processes apart in system traces. */
	if (type != NULL)
		tp_arg_str(tp, p->arg_set_id, "chrome.process_type",
		    "chrome.process_type", type, strlen(type), NULL);
	else
		tp_arg_str_null(tp, p->arg_set_id, "chrome.process_type");
	if (host != NULL)
		tp_arg_str(tp, p->arg_set_id, "chrome.host_app_package_name",
		    "chrome.host_app_package_name", (const char *)host, hostlen,
		    NULL);
	if (has_crash)
		tp_arg_int(tp, p->arg_set_id, "chrome.crash_trace_id",
		    "chrome.crash_trace_id", (int64_t)crash, "uint");
}
