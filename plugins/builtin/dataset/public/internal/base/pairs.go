package base

// Message is one message of a conversation row, reduced to what pairing
// reads: its ShareGPT "from", its OpenAI "role" and its text.
type Message struct {
	From, Role string
	// Text is the message's content; "" when it is missing, empty or not a
	// string.
	Text string
}

// Pair is one prompt and the completion that answered it.
type Pair struct{ Prompt, Completion string }

// ShareGPTPairs is AIPerf's _sharegpt_prompt_completion_pairs: when any
// message has from "human" or "gpt", every adjacent human->gpt pair of
// those messages (others dropped) is one pair, an empty side skipping the
// pair. usesRoles is false when no message has a ShareGPT role: callers
// then pair the first two messages (FirstTwo) or try OpenAI roles.
func ShareGPTPairs(msgs []Message) (pairs []Pair, usesRoles bool) {
	var role []Message
	for _, m := range msgs {
		if m.From == "human" || m.From == "gpt" {
			role = append(role, m)
		}
	}
	if len(role) == 0 {
		return nil, false
	}
	for i := 0; i < len(role)-1; {
		if role[i].From == "human" && role[i+1].From == "gpt" {
			if role[i].Text != "" && role[i+1].Text != "" {
				pairs = append(pairs, Pair{role[i].Text, role[i+1].Text})
			}
			i += 2
		} else {
			i++
		}
	}
	return pairs, true
}

// FirstTwo is the fallback of messages without ShareGPT roles: the first
// two texts are the pair, none when either is empty.
func FirstTwo(msgs []Message) []Pair {
	if len(msgs) < 2 || msgs[0].Text == "" || msgs[1].Text == "" {
		return nil
	}
	return []Pair{{msgs[0].Text, msgs[1].Text}}
}
