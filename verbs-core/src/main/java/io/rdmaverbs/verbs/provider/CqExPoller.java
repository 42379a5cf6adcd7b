package io.rdmaverbs.verbs.provider;

import io.rdmaverbs.verbs.attr.WcOpcode;
import io.rdmaverbs.verbs.attr.WcStatus;

/**
 * The polling of one extended CQ ({@code ibv_create_cq_ex(3)}) in the provider's form:
 * {@code ibv_start_poll}, {@code ibv_next_poll}, {@code ibv_end_poll} and the {@code ibv_wc_read_*} of
 * the current completion, each the CQ's own function pointer. The provider keeps it per CQ, and a batch
 * holds the CQ's {@link QueueLock} from a successful start to its end, as the provider holds its CQ lock
 * (rxe: a spinlock): another thread's start waits for the end; the calls in between and the end are
 * refused on any other thread ({@link WrongThreadException}); a second start on the holding thread, and a
 * destroy of the CQ there, are refused. Both providers enforce that. The caller's other misuse rules
 * ({@code end} only after a successful {@code start}, reading only fields requested at create) are the
 * caller's: a read of a field not requested calls a NULL pointer in C.
 */
public interface CqExPoller {

    /** {@code ibv_start_poll}: 0 with a completion current, ENOENT when there is none (then no end), else an errno. */
    int startPoll();

    /** {@code ibv_next_poll}: 0 with the next completion current, ENOENT at the end; end follows either way. */
    int nextPoll();

    /** {@code ibv_end_poll}. */
    void endPoll();

    /** {@code cq->wr_id} of the current completion. */
    long wrId();

    /** {@code cq->status} of the current completion. */
    WcStatus status();

    WcOpcode readOpcode();

    int readVendorErr();

    /** {@link io.rdmaverbs.verbs.attr.WcFlag} bits. */
    int readWcFlags();

    int readByteLen();

    /** Host byte order. */
    int readImmData();

    int readQpNum();

    int readSrcQp();

    int readSlid();

    int readSl();

    int readDlidPathBits();

    /** In the device's clock units. */
    long readCompletionTs();

    long readCompletionWallclockNs();
}
