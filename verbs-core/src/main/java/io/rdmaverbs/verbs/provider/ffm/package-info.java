/**
 * The native provider: libibverbs through {@code java.lang.foreign}, laid out like jextract's output.
 *
 * <ul>
 *   <li>{@link io.rdmaverbs.verbs.provider.ffm.NativeVerbsProvider} is the only public type: it loads the
 *       library (or explains why it cannot) and hands out one object per verb group, each implementing
 *       that group's interface: {@code NativeDeviceVerbs}, {@code NativeDomainVerbs},
 *       {@code NativeCompletionVerbs}, {@code NativeSrqVerbs}, {@code NativeQpVerbs}, {@code NativeMrVerbs},
 *       {@code NativeAhVerbs} and {@code NativeAsyncEventVerbs}, with the handle checks in the provider
 *       and the shared failure checks in {@code VerbChecks}.</li>
 *   <li>{@code Libibverbs} and {@code Libc} hold one downcall handle per exported symbol;
 *       {@code InlineVerbs} ports the static-inline verbs of {@code <infiniband/verbs.h>}, which dispatch
 *       through {@code struct verbs_context} and {@code struct ibv_context_ops} function pointers.</li>
 *   <li>{@code Ibv*}, {@code VerbsContext} and {@code PollFd} are the C structs as {@code StructLayout}s;
 *       {@code NativeAbi} lists every layout and constant so a test can check them against the real
 *       header.</li>
 *   <li>{@code Native*} handles and the off-heap work requests and completions are what callers hold.</li>
 *   <li>librdmacm ({@code rdma_cm(7)}), loaded on its own so that its absence leaves the verbs usable:
 *       {@code Librdmacm} holds its symbols, {@code Rdma*} and {@code Sockaddr*} are its structs,
 *       {@code RdmaCm} is the internal facade (addresses, private data, decoded {@code CmEvent}s) that
 *       connection resources build on.</li>
 * </ul>
 */
@NullMarked
package io.rdmaverbs.verbs.provider.ffm;

import org.jspecify.annotations.NullMarked;
