// The TrackEvent side of vs_upstream.sh: an app on upstream's Perfetto SDK
// (built by make_traces.sh against the SDK amalgamation, which stays outside
// the tree) that writes through the system backend into our traced.
//
//   sdk_app FRAMES [THREADS]
//
// Each thread draws FRAMES frames: nested slices frame > layout > measure and
// frame > draw with debug annotations, a flow from frame to draw, a counter
// per frame and an instant every 16 frames (about 9 TrackEvents a frame).
// It paces itself so the 8 MB shared memory buffer never fills: a dropped
// event would make the trace depend on the machine's load.
#include "perfetto.h"

#include <stdlib.h>

#include <chrono>
#include <thread>
#include <vector>

PERFETTO_DEFINE_CATEGORIES(perfetto::Category("app"));
PERFETTO_TRACK_EVENT_STATIC_STORAGE();

static void annotate(perfetto::EventContext* ctx, const char* name, int v) {
  perfetto::internal::TrackEventInternal::AddDebugAnnotation(ctx, name, v);
}

static void draw_frames(int thread, int frames) {
  perfetto::CounterTrack depth("queue_depth");
  for (int i = 0; i < frames; i++) {
    uint64_t flow = (static_cast<uint64_t>(thread + 1) << 32) | static_cast<uint64_t>(i);
    // SDK v14 has no Flow helper: the ids go in by hand.
    TRACE_EVENT_BEGIN("app", "frame", [&](perfetto::EventContext ctx) {
      ctx.event()->add_flow_ids(flow);
      annotate(&ctx, "frame", i);
    });
    TRACE_EVENT_BEGIN("app", "layout", "nodes", (i * 7) % 113);
    TRACE_EVENT_BEGIN("app", "measure", "width", 320 + i % 640, "height", 200 + i % 480);
    TRACE_EVENT_END("app");
    TRACE_EVENT_END("app");
    TRACE_EVENT_BEGIN("app", "draw", [&](perfetto::EventContext ctx) {
      ctx.event()->add_terminating_flow_ids(flow);
      annotate(&ctx, "items", i % 97);
    });
    TRACE_EVENT_END("app");
    TRACE_EVENT_END("app");
    TRACE_COUNTER("app", depth, (i * 13) % 29);
    if (i % 16 == 0)
      TRACE_EVENT_INSTANT("app", "vsync", "frame", i);
    // About 90k events a second a thread: traced drains the buffer in time.
    if (i % 64 == 63)
      std::this_thread::sleep_for(std::chrono::milliseconds(6));
  }
}

int main(int argc, char** argv) {
  int frames = argc > 1 ? atoi(argv[1]) : 10000;
  int threads = argc > 2 ? atoi(argv[2]) : 2;
  perfetto::TracingInitArgs args;
  args.backends = perfetto::kSystemBackend;
  args.shmem_size_hint_kb = 8192;
  perfetto::Tracing::Initialize(args);
  perfetto::TrackEvent::Register();
  // Starts once the session has reached this producer, and a little later:
  // SDK v14 turns the category on at SetupDataSource but drops, uncounted,
  // what is written before it has handled StartDataSource. traced sends
  // both in one write, which leaves that window microseconds wide, not
  // the milliseconds that cost 4 to 6 of 8 apps their first events; the
  // pause closes it for good, as this trace is for trace_processor.
  while (!TRACE_EVENT_CATEGORY_ENABLED("app"))
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  // The main thread's first event carries the process track's descriptor,
  // which the threads' tracks name as parent: without it upstream drops
  // every event.
  TRACE_EVENT_INSTANT("app", "start");
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; t++)
    workers.emplace_back(draw_frames, t, frames);
  for (auto& w : workers)
    w.join();
  perfetto::TrackEvent::Flush();
  // Stays until the session ends so the final flush finds this producer.
  while (TRACE_EVENT_CATEGORY_ENABLED("app"))
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return 0;
}
