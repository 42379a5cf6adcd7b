package io.rdmaverbs.verbs.provider;

import io.rdmaverbs.verbs.error.VerbsException;

/**
 * The verbs, one method each, on provider handles, in one interface per group of verbs; a provider is
 * its name and one object per group. A new group is one more interface and one more accessor here, as
 * {@link ConnectionVerbs} (librdmacm) was.
 *
 * <p>Implementations are thread-safe in the sense libibverbs is: calls on different objects may run
 * concurrently; lifetime (never destroying an object another thread is using) is the caller's
 * responsibility, which the resource graph takes.
 *
 * <p>The contract of every verb of every group: it either succeeds or throws {@link VerbsException}
 * naming the verb and the errno. It rejects, with {@link IllegalArgumentException} and before any
 * native call, a handle this provider did not create, and, with {@link IllegalStateException}, one it
 * already destroyed; except the wakes ({@link AsyncEventVerbs#wakeAsyncEventWaiters},
 * {@link CompletionVerbs#wakeCqEventWaiters}), which may race with a destroy and do nothing on a
 * destroyed handle.
 *
 * <p>Each accessor returns the same object every time, so a caller on the data path can keep it.
 */
public interface VerbsProvider {

    /** {@code native} or {@code simulated}. */
    String name();

    /** Devices, contexts, ports and GIDs. */
    DeviceVerbs deviceVerbs();

    /** Protection and XRC domains. */
    DomainVerbs domainVerbs();

    /** Completion channels, CQs, polling and CQ events. */
    CompletionVerbs completionVerbs();

    /** Shared receive queues. */
    SharedReceiveQueueVerbs sharedReceiveQueueVerbs();

    /** Queue pairs, their work requests and multicast attachments. */
    QueuePairVerbs queuePairVerbs();

    /** Memory regions. */
    MemoryRegionVerbs memoryRegionVerbs();

    /** Address handles. */
    AddressHandleVerbs addressHandleVerbs();

    /** A context's asynchronous events. */
    AsyncEventVerbs asyncEventVerbs();

    /**
     * The connection manager, librdmacm ({@code rdma_cm(7)}).
     *
     * @throws ProviderUnavailableException when this provider has no connection manager (the native
     *     provider without librdmacm); the other groups stay usable
     */
    default ConnectionVerbs connectionVerbs() {
        throw new ProviderUnavailableException(ProviderUnavailableException.Reason.LIBRARY_NOT_FOUND, "the "
                + name() + " provider has no connection manager (librdmacm, rdma_cm(7))");
    }
}
