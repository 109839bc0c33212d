"""The product's own sentences on an answer, in English: the refusal, a refusal's reason,
the notes an answer is read with, the words around a quote.

Each is a template with named fields (`str.format`), keyed by a short code (a refusal's
key is its `refusal_code` where it has one). A language module gives its own templates in
`Language.wording`, and a key it lacks falls back to these: a third language starts
readable with none. The fields are the structured values (a word, a source, a number), so
nothing reads a sentence back to find them.
"""

from __future__ import annotations

WORDING: dict[str, str] = {
    # the answer of every refusal, and the words around a quote
    "refusal": "I did not find this in your knowledge base.",
    "differ": "The documents differ: {answer}",
    "say": "The documents say: {answer}",
    "say_otherwise": "The documents say otherwise: {answer}",
    # refusals at the gate (core/gate.py)
    "unknown_tenant": "There is no tenant “{tenant}”; check the id, or create it and upload documents.",
    "no_passages": "The knowledge base has no passages to search.",
    "missing_place": "None of the passages found comes from {places}.",
    "page": "page {number}",
    "missing_section": "No passage is numbered {refs} in the documents searched.",
    "missing_identifier": "No passage mentions {subject}.",
    "missing_identifier_found": "No passage found for this question mentions {subject}.",
    "unknown_name": "The knowledge base never mentions {names}.",
    # refusals of the answer step (core/answer/extractive.py, core/llm_generate.py, core/pipeline.py)
    "ambiguous_section": "Section {ref} stands in several documents ({documents}); name the document in the question.",
    "no_candidate": "No passage holds a sentence that could answer it.",
    "model_no_answer": "The model found no answer in the passages.",
    "below": "{confidence} is below the threshold {threshold}",
    "low_confidence": "Answer confidence {below}: the closest sentence does not clearly answer it.",
    "model_judged": "The model judged that the closest sentence does not answer the question (P={p}).",
    "no_citations": "The answer had no valid citations.",
    "unsupported_claims": "{count} claim(s) were not supported by the cited passages.",
    # a word of the question the documents never use, before the reason it stands beside
    "never_mentions": "The knowledge base never mentions “{word}”",
    "never_mentions_in": "The knowledge base never mentions “{word}” in {language}",
    "unknown_word": "{mention}; {reason}",
    # the lines a console shows under a refusal, in the question's language
    "why": "Why: {reason}",
    "teach_word": "If “{word}” is your word for something the documents call otherwise, an admin can add it "
                  "under Settings → Synonyms; the next ask reads it.",
    "try_language": "The closest passage is in {language}. Questions in one language about documents in another "
                    "are refused more often (their words cannot be checked against the passage): try asking in "
                    "{language}.",
    # notes an answer is read with
    "dropped_claim": "Dropped an unsupported claim: {claim}",
    "model_failed": "{error} Answered from quotes instead.",
    "model_unverified": "The model's answer failed verification ({reason}) Answered from quotes instead.",
    "amended": "{amender} changes section {ref} of {source}: its words are quoted first, the section as it "
               "stood after them.",
    "out_of_force": "{source} is out of force ({why}): what it says may no longer apply.",
    "may_no_longer_apply": "“{key}” of {source} may no longer apply.",
    "different_values": "The documents give different values for “{key}”: {sources}.",
    "and": " and ",
    "valid_until_past": "valid until {date}, a day now past",
    "valid_from_only": "valid only from {date}",
    "replaced_by": "replaced by {by}, valid from {date}",
    "older_edition": "an older edition than {by}",
    # a corrected premise: the note, and why the documents contradict it (core/answer/premise.py)
    "says_no": "The documents say no to what the question asks.",
    "says_no_because": "The documents say no to what the question asks: {why}.",
    "contradicts": "The question takes for granted what the documents contradict: {why}.",
    "opposite": "the documents say the opposite",
    "documents_say": "the documents say {said}",
    "not_but": "{said}, not {asked}",
    "documents_state": "the documents state {said}, not {asked}",
    "in_force_state": "the documents in force state {said}, not {asked}",
}
