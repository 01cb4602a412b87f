package burstgpttrace

import (
	"testing"

	"github.com/aiperf-go/aiperf/internal/fuzzcheck"
)

func FuzzLoad(f *testing.F) {
	fuzzcheck.Loader(f, New(), "trace.csv", opts(), fuzzcheck.LongNumber,
		"Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n5,ChatGPT,472,18,490,Conversation log\n45,ChatGPT,1087,0,1087,Conversation log\n",
		"Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n1.5,GPT-4,10,2,12,API log\n",
		"Timestamp,Model,Request tokens\n\"5\",x,\"1\"\"\"\n", "5,ChatGPT,472,18,490,Conversation log\n")
}
