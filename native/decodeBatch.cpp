// chatserve's one addition to node-llama-cpp's native addon: `chatserveDecodeBatch`, node-llama-cpp's
// `decodeBatch` with a choice of attention per batch.
//
// Why: llama.cpp's CPU flash-attention kernel takes a batch of fewer than 64 rows of one sequence
// row by row (its tiled path starts at 64), and against a long context that is slower than plain
// attention. One-token steps and long prompt chunks are faster with it, so a context keeps flash
// attention and only such batches run without it: the few new tokens of a follow-up turn, an
// agent's next step. On the bench model (2 cores) a follow-up turn after ~1,180 cached tokens
// answered in 200 ms against 301 with flash attention throughout (README, "Flash attention").
// The KV cache keeps flash attention's layout, which llama.cpp's plain attention also reads (it
// transposes V for itself).
//
// scripts/addonSource.mjs adds this file to the addon that scripts/buildCpuBackend.mjs compiles;
// where node-llama-cpp's prebuilt addon runs instead, chatserve calls its `decodeBatch`.
#include <algorithm>
#include <cstring>
#include <exception>
#include <vector>

#include "llama.h"
#include "llama-context.h"
#include "napi.h"

#include "AddonContext.h"

namespace {

/**
 * Turns flash attention off for one `llama_decode`, as decided at construction, and back on when
 * destroyed. It holds for every micro-batch of the call (llama.cpp decodes them all before it
 * returns on the CPU), so a shared step of several streams runs plain throughout.
 *
 * llama.cpp reuses the previous graph when the next micro-batch has its shape and KV length, and
 * that check does not look at this flag: a batch can run in the mode of the graph it reuses. Both
 * modes compute the same attention from the same cache, and the rule below is chosen so that
 * batches with the same shape and KV length (padded to 256 cells) mostly get the same answer.
 *
 * llama.cpp has no setter; llama_context::opt_init changes the same field (and then reserves new
 * compute buffers, which this does not: on the CPU, ggml grows them the first time a plain graph
 * needs more, and they stay that size).
 */
class AttentionForBatch {
    public:
        explicit AttentionForBatch(AddonContext& context)
            : cparams(const_cast<llama_cparams&>(context.ctx->get_cparams())), flashAttention(cparams.flash_attn) {
            // A one-token step, every generating stream's, never qualifies: it is not even looked into.
            if (flashAttention && context.batch.n_tokens >= 2 && plainIsFaster(longestRun(context.batch)) && plainCanRun(context))
                cparams.flash_attn = false;
        }

        ~AttentionForBatch() {
            cparams.flash_attn = flashAttention;
        }

        bool plain() const {
            return flashAttention && !cparams.flash_attn;
        }

        AttentionForBatch(const AttentionForBatch&) = delete;
        AttentionForBatch& operator=(const AttentionForBatch&) = delete;

    private:
        llama_cparams& cparams;
        const bool flashAttention;

        struct Run {
            int32_t tokens = 0;
            llama_pos from = 0;
        };

        /**
         * Measured on the bench model, 2 cores, a run's time plain ÷ flash: 1.14-1.22 for 16-45 tokens
         * from position 0-256, about even from 512-768, 0.68-0.79 from 1,024 and 0.77-0.85 from 2,048
         * (tokens 16-60). A one-token step and a run of 64 or more take flash attention's fast paths.
         * The run must end past position 1,024: the KV length llama.cpp gives it is then 1,280 or more.
         */
        static bool plainIsFaster(const Run& run) {
            return run.tokens >= 2 && run.tokens < 64 && run.from + run.tokens > 1024;
        }

        /**
         * Only an F16 cache (a quantized V cache can only be read by flash attention), and not the
         * architectures whose graphs change with the flag beyond the attention kernel (MiniMax-M3
         * switches to dense attention, DeepSeek V4's indexer changes types).
         */
        static bool plainCanRun(const AddonContext& context) {
            if (context.context_params.type_k != GGML_TYPE_F16 || context.context_params.type_v != GGML_TYPE_F16)
                return false;
            char architecture[64] = "";
            llama_model_meta_val_str(llama_get_model(context.ctx), "general.architecture", architecture, sizeof(architecture));
            return std::strcmp(architecture, "minimax-m3") != 0 && std::strcmp(architecture, "deepseek4") != 0;
        }

        /** The sequence with the most tokens in the batch: how many, and the position of its first. */
        static Run longestRun(const llama_batch& batch) {
            std::vector<Run> runs;
            Run longest;
            for (int32_t index = 0; index < batch.n_tokens; index++)
                for (int32_t entry = 0; entry < batch.n_seq_id[index]; entry++) {
                    const auto sequence = static_cast<size_t>(batch.seq_id[index][entry]);
                    if (sequence >= runs.size())
                        runs.resize(sequence + 1);
                    Run& run = runs[sequence];
                    run.from = run.tokens == 0 ? batch.pos[index] : std::min(run.from, batch.pos[index]);
                    run.tokens++;
                    if (run.tokens > longest.tokens)
                        longest = run;
                }
            return longest;
        }
};

class DecodeBatchWorker : public Napi::AsyncWorker {
    public:
        DecodeBatchWorker(Napi::Env env, AddonContext* context)
            : Napi::AsyncWorker(env, "ChatserveDecodeBatchWorker"),
              context(context),
              deferred(Napi::Promise::Deferred::New(env)) {
            // Held alive until the worker is done, as node-llama-cpp's own workers hold theirs.
            context->Ref();
        }

        ~DecodeBatchWorker() {
            context->Unref();
        }

        Napi::Promise Promise() {
            return deferred.Promise();
        }

    protected:
        // As node-llama-cpp's decode worker, with the attention chosen for the batch.
        void Execute() override {
            try {
                context->sharedSamplerData.gotLogit = false;
                context->sharedSamplerData.hasLogits = false;

                // A pending cache update (a sequence's copy of another's prefix, src/engine/prefixSharing.ts)
                // is applied first, as llama_decode would: llama.cpp then reserves its worst-case graph
                // with the context's own attention, not with this batch's plain one, which would grow
                // the compute buffer for good. Nothing pending, nothing done.
                context->ctx->memory_update(false);
                const AttentionForBatch attention(*context);
                ranPlain = attention.plain();
                const int result = llama_decode(context->ctx, context->batch);
                if (result != 0)
                    return SetError(result == 1
                        ? "could not find a KV slot for the batch (try reducing the size of the batch or increase the context)"
                        : "Eval has failed");
                llama_synchronize(context->ctx);
            } catch (const std::exception& error) {
                SetError(error.what());
            } catch (...) {
                SetError("Unknown error when calling \"llama_decode\"");
            }
        }

        void OnOK() override {
            deferred.Resolve(Napi::Boolean::New(Env(), ranPlain));
        }

        void OnError(const Napi::Error& error) override {
            deferred.Reject(error.Value());
        }

    private:
        AddonContext* context;
        bool ranPlain = false;
        Napi::Promise::Deferred deferred;
};

/** `chatserveDecodeBatch(context): Promise<boolean>`: whether it chose plain attention. */
Napi::Value DecodeBatch(const Napi::CallbackInfo& info) {
    const Napi::Env env = info.Env();
    if (info.Length() < 1 || !info[0].IsObject())
        throw Napi::TypeError::New(env, "chatserveDecodeBatch(context)");

    AddonContext* context = Napi::ObjectWrap<AddonContext>::Unwrap(info[0].As<Napi::Object>());
    if (context->disposed || !context->contextLoaded || !context->has_batch)
        throw Napi::Error::New(env, "chatserveDecodeBatch: the context has no batch to decode");

    auto* worker = new DecodeBatchWorker(env, context);
    worker->Queue();
    return worker->Promise();
}

}  // namespace

/** native/vision.cpp's calls (none where the addon was built without libmtmd). */
void chatserveRegisterVision(Napi::Object exports);

void chatserveRegister(Napi::Object exports) {
    exports.Set("chatserveDecodeBatch", Napi::Function::New(exports.Env(), DecodeBatch, "chatserveDecodeBatch"));
    chatserveRegisterVision(exports);
}
