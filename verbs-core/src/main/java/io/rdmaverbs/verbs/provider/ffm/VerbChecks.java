package io.rdmaverbs.verbs.provider.ffm;

import static io.rdmaverbs.verbs.provider.ffm.InlineVerbs.isNull;

import java.lang.foreign.MemorySegment;

import io.rdmaverbs.verbs.attr.Mtu;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.error.PostFailedException;
import io.rdmaverbs.verbs.error.VerbsException;
import io.rdmaverbs.verbs.provider.Handle;
import io.rdmaverbs.verbs.provider.RecvWr;
import io.rdmaverbs.verbs.provider.SendWr;
import io.rdmaverbs.verbs.provider.WorkRequest;
import io.rdmaverbs.verbs.provider.WorkRequestChain;

import org.jspecify.annotations.Nullable;

/**
 * The checks every verb makes before its native call, and the conversions of what it returned into
 * an errno and a {@link VerbsException} that says what to do. Statically imported by the verb
 * classes; the ownership check of a handle, {@link NativeVerbsProvider#live}, stays with the provider
 * since it asks which provider made the handle.
 */
final class VerbChecks {

    private VerbChecks() {
    }

    static <H extends Handle> H required(@Nullable H handle, String message) {
        if (handle == null) {
            throw new IllegalArgumentException(message);
        }
        return handle;
    }

    /*
     * A request or chain of this provider. Whether it is closed is not asked here: its binding refuses it
     * (bind, or the guard its close retired) before native code, and a check here would be loads before the
     * guard's fence, which waits for every one of them (docs/performance.md, "Pointers passed as longs").
     */

    static NativeSendWr own(SendWr request) {
        if (!(request instanceof NativeSendWr wr)) {
            throw new IllegalArgumentException(request + " was not created by the native provider (use newSendWr)");
        }
        return wr;
    }

    static NativeRecvWr own(RecvWr request) {
        if (!(request instanceof NativeRecvWr wr)) {
            throw new IllegalArgumentException(request + " was not created by the native provider (use newRecvWr)");
        }
        return wr;
    }

    /** A chain of this provider, of {@code kind}'s requests, with something to post. */
    @SuppressWarnings("unchecked")
    static <W extends WorkRequest> NativeWrChain<W> ownChain(WorkRequestChain<W> chain,
            Class<? extends NativeWorkRequest> kind) {
        if (!(chain instanceof NativeWrChain<?> c) || !c.holds(kind)) {
            throw new IllegalArgumentException(chain + " was not created by the native provider (use new"
                    + (kind == NativeSendWr.class ? "SendChain" : "RecvChain") + ")");
        }
        if (c.length() == 0) {
            throw new IllegalArgumentException(c + " is empty: nothing to post");
        }
        return (NativeWrChain<W>) c;
    }

    /** The failure of a chain's post: the verb's usual one, carrying the index {@code bad_wr} names. */
    static PostFailedException chainFailure(String verb, Handle resource, int errno, String message,
            NativeWrChain<?> chain) {
        return new PostFailedException(verb, resource.describe(), Errno.of(errno), message, chain.failedIndex(),
                chain.length());
    }

    static void requireOp(String verb, NativeHandle handle, MemorySegment op) {
        if (isNull(op)) {
            throw new VerbsException(verb, handle.describe(), Errno.EOPNOTSUPP,
                    "the device's provider library does not implement " + verb);
        }
    }

    static void requirePort(String verb, NativeContext context, int port) {
        if (port < 1 || port > 255) {
            throw failure(verb, context, Errno.EINVAL.number(),
                    "port " + port + " does not exist: ports are numbered from 1 to phys_port_cnt");
        }
    }

    /**
     * Marks {@code handle} destroyed when its release verb succeeded; otherwise throws and leaves it
     * alive, so that the release can be retried.
     */
    static void released(String verb, NativeHandle handle, int rc, MemorySegment state, String whenBusy,
            String otherwise) {
        int errno = returned(rc, state);
        if (errno != 0) {
            throw failure(verb, handle, errno, Errno.of(errno).equals(Errno.EBUSY) ? whenBusy : otherwise);
        }
        handle.markDestroyed();
    }

    /**
     * The errno of a verb returning {@code int}: 0 on success. Verbs return the errno itself, but some
     * providers return {@code -errno}, and some return -1 with errno set.
     */
    static int returned(int rc, MemorySegment state) {
        if (rc == -1) {
            int errno = CallState.errno(state);
            return errno > 0 ? errno : Errno.EPERM.number();
        }
        return returnedErrno(rc);
    }

    /**
     * The errno a verb returned as its value, 0 on success: positive as the man pages say, or negated as some
     * providers return it. The data path's verbs report only this way ({@code ibv_post_send(3)},
     * {@code ibv_post_recv(3)}, {@code ibv_post_srq_recv(3)}, {@code ibv_req_notify_cq(3)}), so their errno is not
     * captured; {@link #returned} adds the -1-and-errno form of the others.
     */
    static int returnedErrno(int rc) {
        return rc == Integer.MIN_VALUE ? Errno.EIO.number() : Math.abs(rc);
    }

    /** errno after a call returned NULL (read only then: libc never clears it). */
    static int errnoOfNull(MemorySegment state) {
        int errno = CallState.errno(state);
        return errno > 0 ? errno : Errno.EIO.number();
    }

    static VerbsException failure(String verb, Handle resource, int errno, String message) {
        return new VerbsException(verb, resource.describe(), Errno.of(errno), message);
    }

    static String permissionHint(int errno) {
        Errno e = Errno.of(errno);
        return e.equals(Errno.EACCES) || e.equals(Errno.EPERM)
                ? ": this user may not open /dev/infiniband/uverbs* (check its permissions, e.g. the rdma group "
                        + "or a udev rule)"
                : "";
    }

    static String memlockHint(int errno) {
        return Errno.of(errno).equals(Errno.ENOMEM)
                ? ": out of lockable memory; raise RLIMIT_MEMLOCK (ulimit -l unlimited, or LimitMEMLOCK=infinity "
                        + "in a systemd unit)"
                : "";
    }

    /**
     * A queue's depth as far as it is known: what the create asked for and what it returned. Neither is the
     * number of requests the queue holds, since a provider may round its ring up further (rxe accepts 31
     * sends on a queue created with, and reported as, max_send_wr 16).
     */
    static String queueDepth(String cap, int requested, int granted) {
        return cap + " " + requested + " requested, " + granted + " granted by the create";
    }

    static String postHint(int errno, String depth, String sges) {
        Errno e = Errno.of(errno);
        if (e.equals(Errno.ENOMEM)) {
            return "the queue is full (" + depth + "; the provider may round the queue up, so more may be "
                    + "outstanding); poll the CQ before posting more";
        }
        if (e.equals(Errno.EINVAL)) {
            return "the request does not fit: more SGEs than " + sges + ", an opcode this QP type cannot "
                    + "send, or the QP is not in a state that accepts it";
        }
        return "the provider refused the request";
    }

    static Mtu mtu(int value) {
        // An MTU that was never set reads 0; the smallest is the honest answer for "not negotiated".
        return value >= 1 && value <= 5 ? Mtu.of(value) : Mtu.MTU_256;
    }
}
