package sdk

// CategoryURLSelection is the url_selection_strategy category's name.
const CategoryURLSelection = "url_selection_strategy"

// URLSelectionStrategies is the url_selection_strategy category: which of
// several --url values a session is sent to (--url-strategy). Builtin only:
// it is asked on the timed path.
var URLSelectionStrategies = define[URLSelectionStrategy](Category{Name: CategoryURLSelection, Cardinality: One, Order: 60,
	Description: "Which server URL a session is sent to (--url-strategy)", BuiltinReason: timedWindow})

// URLSelectionStrategy picks the server URL of a session. Every turn of a
// session goes to the URL chosen for its first turn.
type URLSelectionStrategy interface {
	// Pick returns the index (0 <= i < urls) for the session started by the
	// given credit index. It is called from many goroutines.
	Pick(credit, urls int) int
}
