package io.rdmaverbs.verbs.provider;

/**
 * The new post API of one QP ({@code ibv_wr_post(3)}) in the provider's form: the function pointers of
 * its {@code struct ibv_qp_ex}, created with {@code IBV_QP_INIT_ATTR_SEND_OPS_FLAGS}. Between
 * {@link #wrStart()} and {@link #wrComplete()} or {@link #wrAbort()} the provider holds the send queue
 * (rxe: its spinlock), and the session holds the QP's {@link QueueLock}: another thread's start waits for
 * the end; the builders, setters and the end are refused outside a session and on any other thread
 * ({@link WrongThreadException}); a second start, a post and a destroy of the QP on the holding thread are
 * refused. Both providers enforce that. The caller must still end every start; an operation the QP was not
 * created for is a NULL pointer in C, refused by the caller.
 */
public interface QpExOps {

    /** {@code ibv_wr_start}. */
    void wrStart();

    /** {@code ibv_wr_complete}: 0, or the errno that left every WR since the start unposted. */
    int wrComplete();

    /** {@code ibv_wr_abort}: drops every WR since the start. */
    void wrAbort();

    /** {@code qpx->wr_id} of the next WR built. */
    void wrId(long wrId);

    /** {@code qpx->wr_flags}: {@link io.rdmaverbs.verbs.attr.SendFlag} bits of the next WR built. */
    void wrFlags(int flags);

    void send();

    /** Host byte order. */
    void sendImm(int imm);

    void rdmaWrite(int rkey, long remoteAddress);

    void rdmaWriteImm(int rkey, long remoteAddress, int imm);

    void rdmaRead(int rkey, long remoteAddress);

    void atomicFetchAdd(int rkey, long remoteAddress, long add);

    void atomicCmpSwp(int rkey, long remoteAddress, long compare, long swap);

    void setSge(int lkey, long address, int length);

    /** {@code ibv_wr_set_sge_list} of the first {@code count} entries of the arrays. */
    void setSgeList(int count, long[] addresses, int[] lengths, int[] lkeys);

    void setUdAddr(AhHandle ah, int remoteQpn, int remoteQkey);

    void setXrcSrqn(int remoteSrqn);

    /** {@code ibv_wr_set_inline_data}: {@code length} bytes at {@code address}, copied now. */
    void setInlineData(long address, int length);
}
