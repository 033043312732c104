// chatserve's vision calls in node-llama-cpp's addon: llama.cpp's multimodal library (tools/mtmd)
// loaded against a model node-llama-cpp loaded, and an image evaluated into one of its context's
// sequences at that sequence's position, so that chatserve's own decode loop carries on after it.
//
// JavaScript: `new ChatserveVision(addonModel, projectorPath, {threads, useGpu, flashAttention, marker})`, then
// `load()`, `tokenize(bytes)`, `encode(handle, index, encodeId)`, `abortEncode(encodeId)`,
// `decode(addonContext, handle, index, sequenceId, position, from, count)`, `discard(addonContext,
// sequenceId, position)`, `dispose()` (src/vision/nativeVision.ts wraps them).
//
// Loading, decoding an image file and encoding it run on a thread of their own, not on libuv's
// pool: bin/chatserve.cjs gives that pool one thread, which every other stream's decode steps need,
// and a CPU encode takes seconds. Only `decode` (a slice of the image's embeddings into the KV
// cache) runs on the pool, under the context lock like any batch.
//
// Every llama.cpp precondition that would abort the process is checked first and answered with an
// error: a non-causal image (Gemma 3) larger than the micro-batch. scripts/addonSource.mjs adds
// this file and links libmtmd; without libmtmd the file compiles to nothing and the addon has no
// vision (chatserve then answers image input with a 400 that says why).
#if __has_include("mtmd.h")

#include <atomic>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#if defined(__linux__)
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#elif defined(__APPLE__)
#include <pthread/qos.h>
#elif defined(_WIN32)
#include <windows.h>
#endif

#include "llama.h"
#include "mtmd.h"
#include "mtmd-helper.h"
#include "napi.h"

#include "AddonContext.h"
#include "AddonModel.h"
#include "globals/addonLog.h"

namespace {

/** An image's chunks from mtmd_tokenize, and the embeddings of those encoded (one buffer per chunk). */
struct ImageChunks {
    mtmd_input_chunks* chunks = nullptr;
    std::vector<std::vector<float>> embeddings;

    ~ImageChunks() {
        if (chunks != nullptr)
            mtmd_input_chunks_free(chunks);
    }
};

/**
 * Gives the calling thread (and the ggml threads it starts, which inherit it) the lowest CPU
 * priority: an image's decode and encode then take the cores only while the decode loop of every
 * running stream leaves them idle. On a machine whose cores all run inference threads, an image
 * thread at normal priority takes a core from the team, and each token waits for the slowest
 * thread (streams ran 2x slower during a burst of images). Images wait instead; text never does.
 */
void lowerThisThreadsPriority() {
#if defined(__linux__)
    // On Linux a nice value belongs to one thread, named by its thread id.
    setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), 19);
#elif defined(__APPLE__)
    pthread_set_qos_class_self_np(QOS_CLASS_UTILITY, 0);
#elif defined(_WIN32)
    SetThreadPriority(GetCurrentThread(), THREAD_PRIORITY_LOWEST);
#endif
}

/**
 * Runs `work` on a thread of its own, at the lowest priority, and settles a promise with its outcome on the JS thread:
 * `work` returns an error message ("" for none), `done` builds the resolved value. `after` runs on
 * the JS thread either way, before the promise settles.
 */
template <typename Work, typename Done, typename After>
Napi::Promise onOwnThread(Napi::Env env, const char* name, Work work, Done done, After after) {
    struct Task {
        Napi::Promise::Deferred deferred;
        std::string error;
    };
    auto* task = new Task{Napi::Promise::Deferred::New(env), ""};
    auto settle = Napi::ThreadSafeFunction::New(env, Napi::Function::New(env, [](const Napi::CallbackInfo&) {}), name, 0, 1);
    std::thread([task, settle, work = std::move(work), done = std::move(done), after = std::move(after)]() mutable {
        lowerThisThreadsPriority();
        try {
            task->error = work();
        } catch (const std::exception& error) {
            task->error = error.what();
        } catch (...) {
            task->error = "unknown native error";
        }
        settle.BlockingCall([task, done = std::move(done), after = std::move(after)](Napi::Env env, Napi::Function) {
            std::unique_ptr<Task> owned(task);
            after();
            if (!task->error.empty())
                return task->deferred.Reject(Napi::Error::New(env, task->error).Value());
            // Nothing may throw out of a thread-safe call (no JavaScript frame would catch it).
            try {
                task->deferred.Resolve(done(env));
            } catch (const Napi::Error& error) {
                task->deferred.Reject(error.Value());
            } catch (const std::exception& error) {
                task->deferred.Reject(Napi::Error::New(env, error.what()).Value());
            }
        });
        settle.Release();
    }).detach();
    return task->deferred.Promise();
}

class ChatserveVision : public Napi::ObjectWrap<ChatserveVision> {
    public:
        static Napi::Function Define(Napi::Env env) {
            return DefineClass(env, "ChatserveVision", {
                InstanceMethod("load", &ChatserveVision::Load),
                InstanceMethod("tokenize", &ChatserveVision::Tokenize),
                InstanceMethod("encode", &ChatserveVision::Encode),
                InstanceMethod("decode", &ChatserveVision::Decode),
                InstanceMethod("discard", &ChatserveVision::Discard),
                InstanceMethod("abortEncode", &ChatserveVision::AbortEncode),
                InstanceMethod("dispose", &ChatserveVision::Dispose)
            });
        }

        ChatserveVision(const Napi::CallbackInfo& info) : Napi::ObjectWrap<ChatserveVision>(info) {
            if (info.Length() < 3 || !info[0].IsObject() || !info[1].IsString() || !info[2].IsObject())
                throw Napi::TypeError::New(info.Env(), "new ChatserveVision(addonModel, projectorPath, options)");
            // Held so that the model outlives this object whatever order the GC finds them in.
            modelRef = Napi::Persistent(info[0].As<Napi::Object>());
            model = Napi::ObjectWrap<AddonModel>::Unwrap(info[0].As<Napi::Object>());
            projectorPath = info[1].As<Napi::String>().Utf8Value();
            const auto options = info[2].As<Napi::Object>();
            threads = options.Has("threads") ? options.Get("threads").As<Napi::Number>().Int32Value() : 1;
            useGpu = options.Has("useGpu") && options.Get("useGpu").As<Napi::Boolean>().Value();
            flashAttention = options.Has("flashAttention") && options.Get("flashAttention").As<Napi::Boolean>().Value();
            marker = options.Has("marker") ? options.Get("marker").As<Napi::String>().Utf8Value() : std::string(mtmd_default_marker());
        }

        ~ChatserveVision() {
            if (context != nullptr)
                mtmd_free(context);
        }

    private:
        Napi::ObjectReference modelRef;
        AddonModel* model;
        std::string projectorPath;
        int threads = 1;
        bool useGpu = false;
        bool flashAttention = false;
        std::string marker;
        mtmd_context* context = nullptr;
        /** Native calls still running (a thread or a worker); dispose refuses while there are any. */
        std::atomic<int> running{0};
        /** One encode at a time: mtmd keeps the output of the last in the context. */
        std::mutex encoding;
        /** The encode running now, by the id JavaScript gives it, and whether it was asked to stop. */
        std::atomic<double> currentEncode{0};
        std::atomic<bool> currentAborted{false};
        /** Encodes asked to stop (the running one, or ones waiting for `encoding`) that have not ended yet. */
        std::mutex abortsGuard;
        std::unordered_set<double> aborted;
        size_t nodesSinceCheck = 0;

        bool WasAborted(double encodeId) {
            std::lock_guard<std::mutex> lock(abortsGuard);
            return aborted.count(encodeId) > 0;
        }

        /** Forgets an encode's abort once it has ended: ids are not used again. */
        void Ended(double encodeId) {
            std::lock_guard<std::mutex> lock(abortsGuard);
            aborted.erase(encodeId);
        }

        /** Held alive (and counted as running) from a call's start until its promise settles. */
        void Begin() {
            Ref();
            running++;
        }

        std::function<void()> End() {
            return [this]() {
                running--;
                Unref();
            };
        }

        /**
         * ggml's scheduler asks this before each graph node whether the caller wants to look at it;
         * every 64th node it says yes, and after computing up to that node it is asked again whether to
         * go on: where an abort (a client gone) stops the encode. The other nodes run in one go.
         */
        static bool EvalCallback(ggml_tensor*, bool ask, void* self) {
            auto* vision = static_cast<ChatserveVision*>(self);
            if (ask)
                return ++vision->nodesSinceCheck % 64 == 0;
            return !vision->currentAborted.load();
        }

        void CheckLoaded(Napi::Env env) {
            if (context == nullptr)
                throw Napi::Error::New(env, "the projector is not loaded");
        }

        Napi::Value Load(const Napi::CallbackInfo& info) {
            if (context != nullptr || running.load() > 0)
                throw Napi::Error::New(info.Env(), "the projector is loaded already");
            Begin();
            return onOwnThread(info.Env(), "chatserveVisionLoad", [this]() -> std::string {
                mtmd_context_params params = mtmd_context_params_default();
                params.use_gpu = useGpu;
                params.n_threads = threads;
                params.media_marker = marker.c_str();
                params.print_timings = false;
                // On the CPU, flash attention only where JavaScript says it pays (src/vision/nativeVision.ts).
                params.flash_attn_type = useGpu || flashAttention ? LLAMA_FLASH_ATTN_TYPE_AUTO : LLAMA_FLASH_ATTN_TYPE_DISABLED;
                params.cb_eval = EvalCallback;
                params.cb_eval_user_data = this;
                context = mtmd_init_from_file(projectorPath.c_str(), model->model, params);
                if (context == nullptr)
                    return "could not load the projector " + projectorPath + " for this model (see the log for llama.cpp's reason)";
                if (!mtmd_support_vision(context)) {
                    mtmd_free(context);
                    context = nullptr;
                    return "the projector " + projectorPath + " has no vision encoder";
                }
                return "";
            }, [this](Napi::Env env) -> Napi::Value {
                auto result = Napi::Object::New(env);
                result.Set("mrope", mtmd_decode_use_mrope(context));
                return result;
            }, End());
        }

        /** `tokenize(bytes)`: the image's chunks (wrapper text and image tokens), decoded and preprocessed off the JS thread. */
        Napi::Value Tokenize(const Napi::CallbackInfo& info) {
            CheckLoaded(info.Env());
            if (info.Length() < 1 || !info[0].IsTypedArray())
                throw Napi::TypeError::New(info.Env(), "tokenize(bytes: Uint8Array)");
            auto bytes = info[0].As<Napi::Uint8Array>();
            auto data = std::make_shared<std::vector<unsigned char>>(bytes.Data(), bytes.Data() + bytes.ByteLength());
            auto image = std::make_shared<ImageChunks>();
            Begin();
            return onOwnThread(info.Env(), "chatserveVisionTokenize", [this, data, image]() -> std::string {
                auto wrapper = mtmd_helper_bitmap_init_from_buf(context, data->data(), data->size(), false, mtmd_helper_init_opt_default());
                if (wrapper.bitmap == nullptr)
                    return "the image could not be decoded";
                std::unique_ptr<mtmd_bitmap, decltype(&mtmd_bitmap_free)> bitmap(wrapper.bitmap, mtmd_bitmap_free);
                if (mtmd_bitmap_is_audio(bitmap.get()))
                    return "the file is audio, not an image";
                image->chunks = mtmd_input_chunks_init();
                const mtmd_input_text text{marker.c_str(), marker.size(), false, true};
                const mtmd_bitmap* bitmaps[] = {bitmap.get()};
                const int32_t result = mtmd_tokenize(context, image->chunks, &text, bitmaps, 1);
                if (result != 0)
                    return result == 2 ? "the image could not be preprocessed for this projector" : "the image could not be tokenized";
                image->embeddings.resize(mtmd_input_chunks_size(image->chunks));
                return "";
            }, [this, image](Napi::Env env) -> Napi::Value {
                return Describe(env, image);
            }, End());
        }

        /** `{handle, parts: [{type: "text", tokens} | {type: "image", index, tokens, positions, nonCausal, id}]}` */
        Napi::Value Describe(Napi::Env env, const std::shared_ptr<ImageChunks>& image) {
            auto parts = Napi::Array::New(env);
            for (size_t index = 0; index < mtmd_input_chunks_size(image->chunks); index++) {
                const mtmd_input_chunk* chunk = mtmd_input_chunks_get(image->chunks, index);
                auto part = Napi::Object::New(env);
                if (mtmd_input_chunk_get_type(chunk) == MTMD_INPUT_CHUNK_TYPE_TEXT) {
                    size_t count = 0;
                    const llama_token* tokens = mtmd_input_chunk_get_tokens_text(chunk, &count);
                    auto array = Napi::Uint32Array::New(env, count);
                    for (size_t i = 0; i < count; i++)
                        array[i] = static_cast<uint32_t>(tokens[i]);
                    part.Set("type", "text");
                    part.Set("tokens", array);
                } else {
                    part.Set("type", "image");
                    part.Set("index", static_cast<double>(index));
                    part.Set("tokens", static_cast<double>(mtmd_input_chunk_get_n_tokens(chunk)));
                    part.Set("positions", static_cast<double>(mtmd_input_chunk_get_n_pos(chunk)));
                    part.Set("nonCausal", mtmd_decode_use_non_causal(context, chunk));
                    const char* id = mtmd_input_chunk_get_id(chunk);
                    part.Set("id", id == nullptr ? "" : id);
                }
                parts.Set(parts.Length(), part);
            }
            auto result = Napi::Object::New(env);
            auto* held = new std::shared_ptr<ImageChunks>(image);
            result.Set("handle", Napi::External<std::shared_ptr<ImageChunks>>::New(env, held, [](Napi::Env, std::shared_ptr<ImageChunks>* owned) {
                delete owned;
            }));
            result.Set("parts", parts);
            return result;
        }

        static std::shared_ptr<ImageChunks> Chunks(const Napi::Value& handle, size_t index, Napi::Env env) {
            if (!handle.IsExternal())
                throw Napi::TypeError::New(env, "an image handle from tokenize()");
            auto image = *handle.As<Napi::External<std::shared_ptr<ImageChunks>>>().Data();
            if (index >= mtmd_input_chunks_size(image->chunks) ||
                    mtmd_input_chunk_get_type(mtmd_input_chunks_get(image->chunks, index)) != MTMD_INPUT_CHUNK_TYPE_IMAGE)
                throw Napi::RangeError::New(env, "no image chunk at that index");
            return image;
        }

        /**
         * `encode(handle, index, encodeId)`: runs the vision tower off the JS thread, one image at a time
         * per projector. `encodeId` (a positive number, new per call) is what `abortEncode` names.
         */
        Napi::Value Encode(const Napi::CallbackInfo& info) {
            CheckLoaded(info.Env());
            if (info.Length() < 3 || !info[1].IsNumber() || !info[2].IsNumber())
                throw Napi::TypeError::New(info.Env(), "encode(handle, index, encodeId)");
            const size_t index = info[1].As<Napi::Number>().Uint32Value();
            const double encodeId = info[2].As<Napi::Number>().DoubleValue();
            auto image = Chunks(info[0], index, info.Env());
            Begin();
            return onOwnThread(info.Env(), "chatserveVisionEncode", [this, image, index, encodeId]() -> std::string {
                std::lock_guard<std::mutex> lock(encoding);
                struct Forget { ChatserveVision* vision; double id; ~Forget() { vision->Ended(id); } } forget{this, encodeId};
                if (WasAborted(encodeId))
                    return "aborted";
                // Encoded already (the same image in another request, or an earlier turn's): its embeddings stay as they are.
                if (!image->embeddings[index].empty())
                    return "";
                currentEncode = encodeId;
                currentAborted = false;
                // An abort that came between the check above and now.
                if (WasAborted(encodeId))
                    currentAborted = true;
                nodesSinceCheck = 0;
                const mtmd_input_chunk* chunk = mtmd_input_chunks_get(image->chunks, index);
                const int32_t failed = mtmd_encode_chunk(context, chunk);
                const bool stopped = currentAborted.exchange(false);
                currentEncode = 0;
                if (stopped)
                    return "aborted";
                if (failed != 0)
                    return "the projector could not encode the image";
                // Whole, even if its request has gone since: the next request with this image uses it.
                const size_t count = mtmd_input_chunk_get_n_tokens(chunk) * llama_model_n_embd_inp(model->model);
                const float* output = mtmd_get_output_embd(context);
                image->embeddings[index].assign(output, output + count);
                return WasAborted(encodeId) ? "aborted" : "";
            }, [](Napi::Env env) -> Napi::Value {
                return env.Undefined();
            }, End());
        }

        /** `abortEncode(encodeId)`: that encode stops at its next check (see EvalCallback), or never starts; its promise rejects with "aborted". */
        Napi::Value AbortEncode(const Napi::CallbackInfo& info) {
            if (info.Length() < 1 || !info[0].IsNumber())
                throw Napi::TypeError::New(info.Env(), "abortEncode(encodeId)");
            const double encodeId = info[0].As<Napi::Number>().DoubleValue();
            {
                std::lock_guard<std::mutex> lock(abortsGuard);
                aborted.insert(encodeId);
            }
            if (currentEncode.load() == encodeId)
                currentAborted = true;
            return info.Env().Undefined();
        }

        Napi::Value Decode(const Napi::CallbackInfo& info);
        Napi::Value Discard(const Napi::CallbackInfo& info);

        Napi::Value Dispose(const Napi::CallbackInfo& info) {
            if (running.load() > 0)
                throw Napi::Error::New(info.Env(), "the projector is still in use");
            if (context != nullptr)
                mtmd_free(context);
            context = nullptr;
            modelRef.Reset();
            return info.Env().Undefined();
        }

        friend class DecodeImageWorker;
};

/**
 * Part of an encoded image's embeddings into the KV cache of one sequence: embeddings `from` to
 * `from + count` of the image whose first position is `position`. A causal image goes in slices,
 * the context lock released between them, so that other streams' steps go on in between (one
 * `mtmd_helper_decode_image_chunk` call held them for a whole image: 439 ms for LLaVA 1.5's 576
 * embeddings on 2 cores); a non-causal one (Gemma 3) must go whole. The positions are mtmd's own:
 * consecutive, or for M-RoPE models every embedding at `position` in time and at its place in the
 * picture. A failed slice removes the whole image from the sequence.
 */
class DecodeImageWorker : public Napi::AsyncWorker {
    public:
        DecodeImageWorker(Napi::Env env, ChatserveVision* vision, AddonContext* context, std::shared_ptr<ImageChunks> image,
                          size_t index, llama_seq_id sequence, llama_pos position, int32_t from, int32_t count)
            : Napi::AsyncWorker(env, "ChatserveDecodeImageWorker"), vision(vision), context(context), image(std::move(image)),
              index(index), sequence(sequence), position(position), from(from), count(count), deferred(Napi::Promise::Deferred::New(env)) {
            context->Ref();
            vision->Begin();
        }

        ~DecodeImageWorker() {
            vision->End()();
            context->Unref();
        }

        Napi::Promise Promise() { return deferred.Promise(); }

    protected:
        void Execute() override {
            const mtmd_input_chunk* chunk = mtmd_input_chunks_get(image->chunks, index);
            const std::vector<float>& embeddings = image->embeddings[index];
            if (embeddings.empty())
                return SetError("the image was not encoded");
            const auto tokens = static_cast<int32_t>(mtmd_input_chunk_get_n_tokens(chunk));
            const bool nonCausal = mtmd_decode_use_non_causal(vision->context, chunk);
            if (from < 0 || count <= 0 || from + count > tokens || count > static_cast<int32_t>(llama_n_batch(context->ctx)))
                return SetError("no such slice of the image's embeddings");
            if (nonCausal && (from != 0 || count != tokens))
                return SetError("a non-causal image is decoded whole");
            // llama.cpp asserts (aborts the process) on a non-causal batch split across micro-batches.
            if (nonCausal && count > static_cast<int32_t>(llama_n_ubatch(context->ctx)))
                return SetError("the image takes " + std::to_string(tokens) + " tokens, more than the batch size (" +
                    std::to_string(llama_n_ubatch(context->ctx)) + ") this model decodes an image in");

            const bool mrope = mtmd_decode_use_mrope(vision->context);
            std::vector<llama_pos> positions(static_cast<size_t>(count) * (mrope ? 4 : 1));
            const mtmd_image_tokens* imageTokens = mtmd_input_chunk_get_tokens_image(chunk);
            for (int32_t i = 0; i < count; i++) {
                if (!mrope) {
                    positions[i] = position + from + i;
                    continue;
                }
                // llama.cpp reads M-RoPE positions as four sections of `count`: time, height, width, unused.
                const mtmd_decoder_pos at = mtmd_image_tokens_get_decoder_pos(imageTokens, position, static_cast<size_t>(from + i));
                positions[i] = at.t;
                positions[i + count] = at.y;
                positions[i + count * 2] = at.x;
                positions[i + count * 3] = at.z;
            }
            llama_seq_id sequenceId = sequence;
            std::vector<int32_t> sequenceCounts(count, 1);
            std::vector<llama_seq_id*> sequenceIds(count, &sequenceId);
            std::vector<int8_t> outputs(count, 0);
            const size_t width = static_cast<size_t>(llama_model_n_embd_inp(llama_get_model(context->ctx)));
            llama_batch batch{count, nullptr, const_cast<float*>(embeddings.data()) + static_cast<size_t>(from) * width,
                positions.data(), sequenceCounts.data(), sequenceIds.data(), outputs.data()};

            if (nonCausal)
                llama_set_causal_attn(context->ctx, false);
            const int32_t failed = llama_decode(context->ctx, batch);
            if (nonCausal)
                llama_set_causal_attn(context->ctx, true);
            if (failed != 0) {
                // No part of the image stays in the sequence.
                llama_memory_seq_rm(llama_get_memory(context->ctx), sequence, position, -1);
                return SetError("decoding the image into the context failed (is the context full?)");
            }
            llama_synchronize(context->ctx);
        }

        void OnOK() override { deferred.Resolve(Env().Undefined()); }
        void OnError(const Napi::Error& error) override { deferred.Reject(error.Value()); }

    private:
        ChatserveVision* vision;
        AddonContext* context;
        std::shared_ptr<ImageChunks> image;
        size_t index;
        llama_seq_id sequence;
        llama_pos position;
        int32_t from;
        int32_t count;
        Napi::Promise::Deferred deferred;
};

/** `decode(addonContext, handle, index, sequenceId, position, from, count)`: that slice of the image's embeddings. */
Napi::Value ChatserveVision::Decode(const Napi::CallbackInfo& info) {
    const Napi::Env env = info.Env();
    CheckLoaded(env);
    if (info.Length() < 7 || !info[0].IsObject())
        throw Napi::TypeError::New(env, "decode(addonContext, handle, index, sequenceId, position, from, count)");
    AddonContext* addonContext = Napi::ObjectWrap<AddonContext>::Unwrap(info[0].As<Napi::Object>());
    if (addonContext->disposed || !addonContext->contextLoaded)
        throw Napi::Error::New(env, "the context is not loaded");
    const size_t index = info[2].As<Napi::Number>().Uint32Value();
    auto image = Chunks(info[1], index, env);
    auto* worker = new DecodeImageWorker(env, this, addonContext, image, index, info[3].As<Napi::Number>().Int32Value(),
        info[4].As<Napi::Number>().Int32Value(), info[5].As<Napi::Number>().Int32Value(), info[6].As<Napi::Number>().Int32Value());
    worker->Queue();
    return worker->Promise();
}

/** `discard(addonContext, sequenceId, position)`: removes what the sequence holds from `position` on (a slice of an image a request left). */
Napi::Value ChatserveVision::Discard(const Napi::CallbackInfo& info) {
    if (info.Length() < 3 || !info[0].IsObject())
        throw Napi::TypeError::New(info.Env(), "discard(addonContext, sequenceId, position)");
    AddonContext* addonContext = Napi::ObjectWrap<AddonContext>::Unwrap(info[0].As<Napi::Object>());
    if (!addonContext->disposed && addonContext->contextLoaded)
        llama_memory_seq_rm(llama_get_memory(addonContext->ctx), info[1].As<Napi::Number>().Int32Value(), info[2].As<Napi::Number>().Int32Value(), -1);
    return info.Env().Undefined();
}

}  // namespace

void chatserveRegisterVision(Napi::Object exports) {
    mtmd_helper_log_set(addonLlamaCppLogCallback, nullptr);
    exports.Set("ChatserveVision", ChatserveVision::Define(exports.Env()));
}

#else

#include "napi.h"

/** Built without libmtmd: the addon has no vision. */
void chatserveRegisterVision(Napi::Object) {}

#endif
