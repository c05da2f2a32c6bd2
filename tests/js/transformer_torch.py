# The float64 PyTorch oracle of tests/js/transformer-torch.test.mjs (run with Debian's python3-torch,
# /usr/bin/python3). Reads JSON on stdin: {"cases": [{config, params: {name: [numbers]}, ids, targets}]}
# and writes, per case, the logits, attentions, loss and every parameter's gradient by autograd, all in
# float64, from this file's own implementation of the model (written from docs/transformer.md, not from
# the C++). For a case with "safetensors" it also loads that file into a module shaped and named
# exactly as nanoGPT's GPT (model.py: transformer.wte / wpe / h[L].{ln_1, attn.c_attn, attn.c_proj, ln_2,
# mlp.c_fc, mlp.c_proj} / ln_f, lm_head tied to wte) from the case's "safetensors" (model.save(), base64) with
# load_state_dict(strict=True) and returns its logits. A case with "train" runs AdamW steps instead.
import base64
import json
import math
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_default_dtype(torch.float64)


def head_scores(name, q, k, P, prefix, dh):
    """S[i, j] = score of query row i against key row j (q, k: [n, dh])."""
    n = q.shape[0]
    if name == 'dot':
        return q @ k.T
    if name == 'scaled-dot':
        return q @ k.T / math.sqrt(dh)
    if name == 'cosine':
        return (q @ k.T) / (q.norm(dim=1, keepdim=True) * k.norm(dim=1, keepdim=True).T)
    if name == 'general':
        return q @ P[prefix + 'W'] @ k.T
    if name == 'additive':
        a = q @ P[prefix + 'W1'].T
        b = k @ P[prefix + 'W2'].T
        return torch.tanh(a[:, None, :] + b[None, :, :]) @ P[prefix + 'v']
    if name == 'location':
        return q @ P[prefix + 'Wa'][:k.shape[0]].T  # row j scores key position j
    diff = q[:, None, :] - k[None, :, :]
    if name == 'neg-euclidean':
        return -torch.sqrt((diff ** 2).sum(-1))
    if name == 'neg-sq-euclidean':
        return -(diff ** 2).sum(-1)
    if name == 'idw':  # p = 2, eps = 1e-3
        return -torch.log(1e-3 + (diff ** 2).sum(-1))
    if name == 'neg-manhattan':
        return -diff.abs().sum(-1)
    raise ValueError('unknown score ' + name)


def heads(c, P, q, k, v, causal, labels, prefix):
    """Every head of one attention sublayer: the outputs concatenated, and the weights [H, nq, nk]
    (each head's A keeps its gradient: retain_grad, for gradient x attention). A head whose label is in
    c['ablate'] has its output zeroed."""
    H = c['heads']
    dh = c['dModel'] // H
    mask = torch.ones(q.shape[0], k.shape[0]).triu(1).bool() if causal else None
    outs, weights = [], []
    for hd in range(H):
        sl = slice(hd * dh, (hd + 1) * dh)
        S = head_scores(c['score'][labels % hd], q[:, sl], k[:, sl], P, prefix + 'score.%d.' % hd, dh)
        tau = torch.exp(P[prefix + 'log_tau'][hd]) if c['temperature'] == 'learned' else c['temperature']
        Z = S / tau
        if causal:
            Z = Z.masked_fill(mask, float('-inf'))
        A = torch.softmax(Z, dim=-1)
        if A.requires_grad:
            A.retain_grad()
        weights.append(A)
        o = A @ v[:, sl]
        outs.append(o * 0 if labels % hd in c.get('ablate', ()) else o)
    return torch.cat(outs, dim=1), weights


def stack(c, P, name, ids, causal, labels, memory=None, cross_labels=None):
    """One stack of pre-LN blocks over ids: its final LayerNorm's output and every attention's weights."""
    D, dff = c['dModel'], c['dFF']
    x = P['transformer.wte.weight'][ids] + P[name + '.wpe.weight'][:len(ids)]
    self_att, cross_att = [], []
    for l in range(c['layers']):
        p = '%s.h.%d.' % (name, l)
        h = F.layer_norm(x, (D,), P[p + 'ln_1.weight'], P[p + 'ln_1.bias'], 1e-5)
        q, k, v = (h @ P[p + 'attn.c_attn.weight'].T + P[p + 'attn.c_attn.bias']).split(D, dim=1)
        o, A = heads(c, P, q, k, v, causal, labels % l + '.%d', p + 'attn.')
        self_att.append(A)
        x = x + o @ P[p + 'attn.c_proj.weight'].T + P[p + 'attn.c_proj.bias']
        if memory is not None:
            h = F.layer_norm(x, (D,), P[p + 'ln_cross.weight'], P[p + 'ln_cross.bias'], 1e-5)
            q = h @ P[p + 'cross.c_q.weight'].T + P[p + 'cross.c_q.bias']
            k, v = (memory @ P[p + 'cross.c_kv.weight'].T + P[p + 'cross.c_kv.bias']).split(D, dim=1)
            o, A = heads(c, P, q, k, v, False, cross_labels % l + '.%d', p + 'cross.')
            cross_att.append(A)
            x = x + o @ P[p + 'cross.c_proj.weight'].T + P[p + 'cross.c_proj.bias']
        if dff:
            h = F.layer_norm(x, (D,), P[p + 'ln_2.weight'], P[p + 'ln_2.bias'], 1e-5)
            f = F.gelu(h @ P[p + 'mlp.c_fc.weight'].T + P[p + 'mlp.c_fc.bias'])
            x = x + f @ P[p + 'mlp.c_proj.weight'].T + P[p + 'mlp.c_proj.bias']
    return F.layer_norm(x, (D,), P[name + '.ln_f.weight'], P[name + '.ln_f.bias'], 1e-5), self_att, cross_att


def stacked(per_layer):
    """[L, H, nq, nk] from each layer's list of heads' weights."""
    return torch.stack([torch.stack(layer) for layer in per_layer])


def grads_of(per_layer):
    """The retained gradients of every head's weights, [L, H, nq, nk] flattened."""
    return torch.stack([torch.stack([A.grad for A in layer]) for layer in per_layer]).flatten().tolist()


def forward(c, P, ids, keep=None):
    """A decoder: logits [n, vocab] and the attentions [L, H, n, n] (`keep`: receives the per-head tensors)."""
    xf, att, _ = stack(c, P, 'transformer', ids, True, '%d')
    if keep is not None:
        keep['attentions'] = att
    return xf @ P['transformer.wte.weight'].T, stacked(att)


def forward_pair(c, P, source, target, keep=None):
    """An encoder-decoder: the decoder reads the target shifted right after the start id 0."""
    memory, enc, _ = stack(c, P, 'encoder', source, False, 'encoder.%d')
    dec_in = [0] + [max(t, 0) for t in target[:-1]]
    xf, dec, cross = stack(c, P, 'decoder', dec_in, True, 'decoder.%d', memory, 'cross.%d')
    if keep is not None:
        keep.update(encoderAttentions=enc, attentions=dec, cross=cross)
    return xf @ P['transformer.wte.weight'].T, stacked(enc), stacked(dec), stacked(cross)


def attention_gradients(case):
    """d logits[position, token] / d A of every head by autograd (retain_grad on each head's softmax);
    token: the case's, or the argmax at the position."""
    c, g = case['config'], case['attentionGradients']
    c = dict(c, ablate=g.get('ablate', []))
    P = {name: torch.tensor(v, requires_grad=True).reshape(c['shapes'][name]) for name, v in case['params'].items()}
    keep = {}
    if c['kind'] == 'encoder-decoder':
        logits = forward_pair(c, P, case['ids'], case['targets'], keep)[0]
    else:
        logits = forward(c, P, case['ids'], keep)[0]
    pos = g['position']
    token = g['token'] if g.get('token') is not None else int(logits[pos].argmax())
    logits[pos, token].backward()
    out = {'token': token, 'logit': logits[pos, token].item()}
    for part, heads_ in keep.items():
        out[{'attentions': 'gradients', 'encoderAttentions': 'encoderGradients', 'cross': 'crossGradients'}[part]] = grads_of(heads_)
    return out


# ---- nanoGPT's GPT, its modules named as in nanoGPT's model.py (bias=True, dropout 0) ----------------
class CausalSelfAttention(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.c_attn = nn.Linear(d, 3 * d)
        self.c_proj = nn.Linear(d, d)
        self.n_head, self.n_embd = heads, d

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(torch.ones(T, T).tril() == 0, float('-inf'))
        y = F.softmax(att, dim=-1) @ v
        return self.c_proj(y.transpose(1, 2).contiguous().view(B, T, C))


class MLP(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.c_fc = nn.Linear(d, 4 * d)
        self.gelu = nn.GELU()
        self.c_proj = nn.Linear(4 * d, d)

    def forward(self, x):
        return self.c_proj(self.gelu(self.c_fc(x)))


class Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.ln_1 = nn.LayerNorm(d)
        self.attn = CausalSelfAttention(d, heads)
        self.ln_2 = nn.LayerNorm(d)
        self.mlp = MLP(d)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self, vocab, block_size, layers, heads, d):
        super().__init__()
        self.transformer = nn.ModuleDict(dict(
            wte=nn.Embedding(vocab, d), wpe=nn.Embedding(block_size, d), drop=nn.Dropout(0.0),
            h=nn.ModuleList([Block(d, heads) for _ in range(layers)]), ln_f=nn.LayerNorm(d)))
        self.lm_head = nn.Linear(d, vocab, bias=False)
        self.transformer.wte.weight = self.lm_head.weight  # tied, as nanoGPT does

    def forward(self, idx):
        t = idx.size(1)
        x = self.transformer.drop(self.transformer.wte(idx) + self.transformer.wpe(torch.arange(t)))
        for block in self.transformer.h:
            x = block(x)
        return self.lm_head(self.transformer.ln_f(x))


def read_safetensors(data):
    """The tensors and metadata of a safetensors file, read from the format's definition (an 8-byte
    little-endian header length, a JSON header, then the tensors' bytes), with the checks the reference
    reader makes: the tensors cover the data buffer in order, without gaps or overlaps."""
    n = int.from_bytes(data[:8], 'little')
    header = json.loads(data[8:8 + n].decode('utf-8'))
    meta = header.pop('__metadata__', {})
    buf = data[8 + n:]
    at = 0
    for begin, end, name in sorted((v['data_offsets'][0], v['data_offsets'][1], k) for k, v in header.items()):
        assert begin == at, 'gap or overlap before ' + name
        assert header[name]['dtype'] == 'F32'
        at = end
    assert at == len(buf), 'data past the last tensor'
    tensors = {k: torch.frombuffer(bytearray(buf[v['data_offsets'][0]:v['data_offsets'][1]]), dtype=torch.float32)
               .to(torch.float64).reshape(v['shape']) for k, v in header.items()}
    return tensors, meta


def nanogpt_logits(saved, ids):
    """The saved file (model.save()) loaded into nanoGPT's GPT: the config from its metadata."""
    sd, meta = read_safetensors(base64.b64decode(saved))
    assert meta['attnscope.architecture'] == 'decoder' and meta['format'] == 'pt'
    c = json.loads(meta['attnscope.config'])
    model = GPT(c['vocab'], c['maxTokens'], c['layers'], c['heads'], c['dModel'])
    sd['lm_head.weight'] = sd['transformer.wte.weight']
    model.load_state_dict(sd, strict=True)
    model.eval()
    with torch.no_grad():
        return model(torch.tensor([ids]))[0].flatten().tolist()


def train(case, dtype):
    """AdamW with the gradient's global norm clipped, on one sequence (every batch is that sequence):
    PyTorch's own optimiser and clip_grad_norm_, decay on the parameters of 2 or more dimensions."""
    c, o = case['config'], case['train']
    P = {name: torch.tensor(v, dtype=dtype).reshape(c['shapes'][name]).requires_grad_() for name, v in case['params'].items()}
    decay = [p for p in P.values() if p.dim() >= 2]
    rest = [p for p in P.values() if p.dim() < 2]
    opt = torch.optim.AdamW([{'params': decay, 'weight_decay': o['weightDecay']}, {'params': rest, 'weight_decay': 0.0}],
                            lr=o['learningRate'], betas=(0.9, 0.95), eps=1e-8)
    targets = torch.tensor(case['targets'])
    keep = targets >= 0
    losses, norms = [], []
    for _ in range(o['steps']):
        opt.zero_grad()
        logits, _ = forward(c, P, case['ids'])
        loss = F.cross_entropy(logits[keep], targets[keep])
        loss.backward()
        norms.append(torch.nn.utils.clip_grad_norm_(list(P.values()), o['clip']).item())
        opt.step()
        losses.append(loss.item())
    return {'losses': losses, 'norms': norms, 'params': {name: p.detach().flatten().tolist() for name, p in P.items()}}


def run(case):
    if 'attentionGradients' in case:
        return attention_gradients(case)
    if 'train' in case:
        # float64, and float32 for the size of float32's own drift along the same trajectory (AdamW
        # divides each gradient by its own size, so where a gradient is rounding noise, e.g. a key bias
        # that softmax ignores, float32 moves the parameter and float64 does not).
        return {'float64': train(case, torch.float64), 'float32': train(case, torch.float32)}
    c = case['config']
    P = {name: torch.tensor(v, requires_grad=True) for name, v in case['params'].items()}
    view = {name: P[name].reshape(c['shapes'][name]) for name in P}
    ids, targets = case['ids'], torch.tensor(case['targets'])
    out = {}
    if c['kind'] == 'encoder-decoder':
        logits, enc, att, cross = forward_pair(c, view, ids, case['targets'])
        out['encoderAttentions'] = enc.detach().flatten().tolist()
        out['cross'] = cross.detach().flatten().tolist()
    else:
        logits, att = forward(c, view, ids)
    keep = targets >= 0
    loss = F.cross_entropy(logits[keep], targets[keep])
    loss.backward()
    out.update({'logits': logits.detach().flatten().tolist(), 'attentions': att.detach().flatten().tolist(), 'loss': loss.item(),
                'gradients': {name: P[name].grad.flatten().tolist() for name in P}})
    if case.get('safetensors'):
        out['nanogpt'] = nanogpt_logits(case['safetensors'], ids)
    return out


json.dump({'torch': torch.__version__, 'results': [run(case) for case in json.load(sys.stdin)['cases']]}, sys.stdout)
