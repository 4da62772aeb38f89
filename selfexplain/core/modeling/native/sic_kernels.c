/* The SIC span layer's forward and backward as two single-pass loops over span slots.
 *
 * Built at first use by selfexplain/core/modeling/native_spans.py (cc -O3 -march=native -fopenmp) and
 * called through ctypes; all arrays are contiguous, float32 unless stated:
 *   features [B, N, 3H]           per-token terms (left | right | gate) with
 *                                 h(i,j) = tanh(left_i + right_j + gate_i * gate_j)
 *   weight [H], bias              the interpretation layer: logit(i,j) = weight . h(i,j) + bias
 *   starts, ends [S] int64        span slots, valid [B, S] uint8 (0 = padding / cross-segment slot)
 * Each span vector lives only in a thread-local [H] buffer: memory grows with S (the logits),
 * never with S x H, and nothing is recomputed except one tanh per slot in the backward pass.
 */
#include <float.h>
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* tanh(x) ~ x P(x^2) / Q(x^2) on [-9, 9] (tanh(9) rounds to 1 in float32), max abs error
 * 3.4e-7 (core/modeling/tanh_fit.py refits the coefficients). Pure arithmetic, so the loops
 * below vectorise; libm's tanhf would not. */
static inline float tanh_approx(float x) {
    x = x > 9.0f ? 9.0f : (x < -9.0f ? -9.0f : x);
    const float z = x * x;
    const float p = (((1.342193619498449e-08f * z + 2.0645881235666426e-05f) * z + 0.0034972709259407497f) * z
                     + 0.13382237801435112f) * z + 0.9999999196749878f;
    const float q = (((7.800688507770477e-07f * z + 0.00032887861633056883f) * z + 0.0258827659621395f) * z
                     + 0.4671553954643534f) * z + 1.0f;
    const float y = x * p / q;
    return y > 1.0f ? 1.0f : (y < -1.0f ? -1.0f : y);
}

/* h[k] = tanh(l[k] + r[k] + gi[k] * gj[k]); returns v . h (v: the interpretation weight
 * forwards, the gradient reaching the pooled vector backwards). */
static inline float span_vector(const float *l, const float *r, const float *gi, const float *gj, const float *v,
                                float *h, int64_t H) {
    float dot = 0.0f;
#pragma omp simd reduction(+ : dot)
    for (int64_t k = 0; k < H; k++) {
        h[k] = tanh_approx(l[k] + r[k] + gi[k] * gj[k]);
        dot += h[k] * v[k];
    }
    return dot;
}

void tanh_values(const float *x, float *y, int64_t n) {
#pragma omp simd
    for (int64_t k = 0; k < n; k++) y[k] = tanh_approx(x[k]);
}

/* Forward. Slots of each example are cut into C chunks; for chunk c of example b it writes
 * logits[b, s] (0 where invalid), peaks[b, c] = the chunk's largest logit (-FLT_MAX if none)
 * and weighted[b, c, :] = sum_s exp(logit - peak) h(s), with an online rescale when the
 * running maximum grows, so every slot is visited once. */
void sic_forward(const float *features, const float *weight, float bias, const int64_t *starts,
                 const int64_t *ends, const uint8_t *valid, int64_t B, int64_t N, int64_t H, int64_t S, int64_t C,
                 float *logits, float *peaks, float *weighted, int threads) {
    const int64_t row = 3 * H;
    const int64_t chunk = (S + C - 1) / C;
#pragma omp parallel num_threads(threads)
    {
        float *h = malloc(sizeof(float) * H);
#pragma omp for schedule(dynamic, 1)
        for (int64_t item = 0; item < B * C; item++) {
            const int64_t b = item / C, c = item % C;
            const int64_t lo = c * chunk, hi = lo + chunk < S ? lo + chunk : S;
            const float *example = features + b * N * row;
            float *acc = weighted + item * H;
            float peak = -FLT_MAX;
            int seen = 0;
            memset(acc, 0, sizeof(float) * H);
            for (int64_t s = lo; s < hi; s++) {
                if (!valid[b * S + s]) {
                    logits[b * S + s] = 0.0f; /* the caller masks invalid slots to -inf */
                    continue;
                }
                const float *fi = example + starts[s] * row, *fj = example + ends[s] * row;
                const float logit = span_vector(fi, fj + H, fi + 2 * H, fj + 2 * H, weight, h, H) + bias;
                logits[b * S + s] = logit;
                if (!seen || logit > peak) {
                    const float rescale = seen ? expf(peak - logit) : 0.0f;
#pragma omp simd
                    for (int64_t k = 0; k < H; k++) acc[k] *= rescale;
                    peak = logit;
                    seen = 1;
                }
                const float w = expf(logit - peak);
#pragma omp simd
                for (int64_t k = 0; k < H; k++) acc[k] += w * h[k];
            }
            peaks[item] = peak;
        }
        free(h);
    }
}

/* Backward of pooled = sum_s alpha_s h_s with alpha = softmax(logits), for one example's
 * slots lo..hi: ``features`` and ``d_features`` are that example's [N, 3H] rows; d_weight [H]
 * and *d_bias accumulate. grad_pooled [H]; dot_gp = grad_pooled . pooled; grad_logits [S] is
 * the gradient reaching the logits from outside (alpha's other uses). */
static void backward_slots(const float *features, const float *weight, const int64_t *starts, const int64_t *ends,
                           const uint8_t *valid, const float *alpha, const float *grad_logits,
                           const float *grad_pooled, float dot_gp, int64_t H, int64_t lo, int64_t hi,
                           float *d_features, float *d_weight, float *d_bias, float *h) {
    const int64_t row = 3 * H;
    for (int64_t s = lo; s < hi; s++) {
        if (!valid[s]) continue;
        const int64_t i = starts[s] * row, j = ends[s] * row;
        const float *left = features + i, *right = features + j + H;
        const float *gate_i = features + i + 2 * H, *gate_j = features + j + 2 * H;
        float *d_left = d_features + i, *d_right = d_features + j + H;
        float *d_gate_i = d_features + i + 2 * H, *d_gate_j = d_features + j + 2 * H;
        const float dot_g = span_vector(left, right, gate_i, gate_j, grad_pooled, h, H);
        const float a = alpha[s];
        const float d_logit = a * (dot_g - dot_gp) + grad_logits[s];
        *d_bias += d_logit;
        if (i != j) {
#pragma omp simd
            for (int64_t k = 0; k < H; k++) {
                const float d = (a * grad_pooled[k] + d_logit * weight[k]) * (1.0f - h[k] * h[k]);
                d_left[k] += d;
                d_right[k] += d;
                d_gate_i[k] += d * gate_j[k];
                d_gate_j[k] += d * gate_i[k];
                d_weight[k] += d_logit * h[k];
            }
            continue;
        }
        /* one-token span: both gate terms are the same row, d(g*g)/dg = 2g */
#pragma omp simd
        for (int64_t k = 0; k < H; k++) {
            const float d = (a * grad_pooled[k] + d_logit * weight[k]) * (1.0f - h[k] * h[k]);
            d_left[k] += d;
            d_right[k] += d;
            d_gate_i[k] += 2.0f * d * gate_i[k];
            d_weight[k] += d_logit * h[k];
        }
    }
}

/* Backward. d_features [B, N, 3H] must be zeroed by the caller; d_weight [threads, H] and
 * d_bias [threads] receive per-thread partial sums (also zeroed by the caller). With at least
 * as many examples as threads, each thread owns whole examples; otherwise each example's slots
 * are split over the threads, which accumulate into private buffers summed afterwards. */
void sic_backward(const float *features, const float *weight, const int64_t *starts, const int64_t *ends,
                  const uint8_t *valid, const float *alpha, const float *grad_logits, const float *grad_pooled,
                  const float *dot_gp, int64_t B, int64_t N, int64_t H, int64_t S, float *d_features,
                  float *d_weight, float *d_bias, int threads) {
    const int64_t NR = N * 3 * H;
    if (B >= threads) {
#pragma omp parallel num_threads(threads)
        {
            const int t = omp_get_thread_num();
            float *h = malloc(sizeof(float) * H);
#pragma omp for schedule(dynamic, 1)
            for (int64_t b = 0; b < B; b++)
                backward_slots(features + b * NR, weight, starts, ends, valid + b * S, alpha + b * S,
                               grad_logits + b * S, grad_pooled + b * H, dot_gp[b], H, 0, S, d_features + b * NR,
                               d_weight + t * H, d_bias + t, h);
            free(h);
        }
        return;
    }
    float *scratch = malloc(sizeof(float) * (size_t)threads * NR);
    for (int64_t b = 0; b < B; b++) {
#pragma omp parallel num_threads(threads)
        {
            const int t = omp_get_thread_num(), n = omp_get_num_threads();
            float *own = scratch + (size_t)t * NR;
            float *h = malloc(sizeof(float) * H);
            const int64_t per = (S + n - 1) / n, lo = t * per, hi = lo + per < S ? lo + per : S;
            memset(own, 0, sizeof(float) * NR);
            if (lo < hi)
                backward_slots(features + b * NR, weight, starts, ends, valid + b * S, alpha + b * S,
                               grad_logits + b * S, grad_pooled + b * H, dot_gp[b], H, lo, hi, own,
                               d_weight + t * H, d_bias + t, h);
            free(h);
#pragma omp barrier
#pragma omp for schedule(static)
            for (int64_t e = 0; e < NR; e++) {
                float total = 0.0f;
                for (int u = 0; u < n; u++) total += scratch[(size_t)u * NR + e];
                d_features[b * NR + e] = total;
            }
        }
    }
    free(scratch);
}
