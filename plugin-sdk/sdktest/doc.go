// Package sdktest is the conformance suite for aiperf plugins. A plugin
// author runs it from their own tests, either in process against their
// implementation of an sdk interface or out of process against the built
// plugin binary:
//
//	func TestConformance(t *testing.T) {
//		sdktest.Endpoint(t, &MyEndpoint{}, sdktest.EndpointCase{SampleUnits: []sdktest.SampleUnit{{Data: []byte(`{"delta":"hi"}`), Text: "hi"}}})
//	}
//
// or, for the built binary (gRPC plugins, any language):
//
//	sdktest.GRPCPlugin(t, "./my-plugin", sdktest.WithEndpointCase(myCase))
//
// Each check reports every violation it finds with t.Errorf (so one run
// lists all of them) and uses t.Fatalf only when nothing further can be
// checked, e.g. a plugin process that does not start. Checks:
//
//   - Endpoint: metadata (paths start with '/', a service kind, a streaming
//     path when streaming is supported); FormatPayload returns a JSON object
//     for a representative set of requests (one and several texts, history,
//     max tokens set and unset, legacy max tokens, --extra-inputs and turn
//     extras merged last, streaming on and off, special characters), carries
//     the prompt texts and never panics on odd input; ParseResponse maps
//     "[DONE]" and empty data to an empty response without error, rejects
//     malformed data with an error, and parses the author's sample units to
//     the expected text; an sdk.RecordParser returns one response per unit,
//     in order, with PerfNs copied, agreeing with ParseResponse.
//   - RecordProcessor: Metrics (asked after Init, as the core does)
//     declares at least one metric; tags are unique names without
//     whitespace; each has a Header and a Unit; a DisplayUnit differing
//     from Unit is a time unit (ns, us, ms, s) converted from a time Unit;
//     Flags use only AIPerf's flag bits; Requires names other metrics.
//     Process before Init (sdk.Initializer) may fail or work (either is
//     accepted; a panic is not); after Init, a streaming, a non-streaming,
//     an error, a cancelled and an empty record are processed without error
//     or panic; every value is finite, list values are flagged IsList, every
//     tag is declared, List metrics get lists (and only they), Integer
//     metrics whole numbers; concurrent Process calls work (run the suite
//     with -race).
//   - DatasetLoader: CanLoad accepts the sample and refuses a missing path,
//     a directory and a garbage file; Load returns at least one conversation
//     whose turns carry text, and an error (not a panic) for garbage.
//   - DataExporter: Export into a temporary artifact directory with a
//     representative ExportContext; every file it reports exists, is not
//     empty and lies in the artifact directory.
//   - Plot: Applies on a run without data returns (either answer) without
//     panicking; the plot applies to the sample run (SamplePlotRun, or the
//     author's); PNG renders decode at the size PlotOptions asks for
//     (Width and Height at 100 DPI, scaled by DPI) for two sizes and
//     themes; an SVG render is an XML document rooted at <svg>. A
//     ComparisonPlot is checked over three sample runs (AppliesToRuns,
//     RenderRuns), and its single-run Applies must report false.
//   - Configurable (also run by each category check above for a plugin
//     implementing sdk.Configurable): PluginConfig returns a non-nil
//     pointer, the same on every call; the default settings survive a JSON
//     round trip through sdk.DecodeConfig; {} is accepted and an unknown key
//     refused.
//   - GRPCPlugin: starts the binary with hashicorp/go-plugin exactly as
//     aiperf does, checks Describe (API version, categories that accept gRPC
//     plugins per their sdk.Category descriptors, endpoint metadata for
//     endpoints, declared metrics exactly when it serves record_processor,
//     comparison_plot only when it serves plot),
//     sends Configure for every category it claims (an unknown key must be
//     refused, {} accepted, also by a plugin without settings), runs the
//     checks above for every category it claims over the gRPC protocol
//     (the record processor's metrics are what Describe declares after
//     InitRecordProcessor), checks the process still serves at the end and
//     kills it on cleanup.
//
// Every call into the plugin is guarded: a panic or a call that does not
// return within 30 s is reported as a failure naming the call.
package sdktest
