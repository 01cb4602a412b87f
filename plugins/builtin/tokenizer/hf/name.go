package hf

// Name is the plugin's registered name: the tokenizer plugin that loads
// --tokenizer from a tokenizer.json or the Hugging Face hub.
const Name = "hf"
