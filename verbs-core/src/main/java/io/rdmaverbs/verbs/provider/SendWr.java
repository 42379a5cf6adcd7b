package io.rdmaverbs.verbs.provider;

import io.rdmaverbs.verbs.attr.SendOpcode;

import org.jspecify.annotations.Nullable;

/**
 * A reusable send work request in the provider's own format ({@code struct ibv_send_wr} plus its
 * scatter/gather list for the native provider), so that posting allocates nothing. Thread-confined:
 * one request object per posting thread. Setters overwrite; {@link #clear()} resets everything.
 */
public interface SendWr extends AutoCloseable {

    int maxSge();

    void clear();

    void wrId(long id);

    long wrId();

    void opcode(SendOpcode opcode);

    SendOpcode opcode();

    /** {@link io.rdmaverbs.verbs.attr.SendFlag} bits. */
    void flags(int sendFlags);

    int flags();

    /** Sets scatter/gather entry {@code index}; the count is {@link #sgeCount(int)}. */
    void sge(int index, long address, int length, int lkey);

    void sgeCount(int count);

    int sgeCount();

    long sgeAddress(int index);

    int sgeLength(int index);

    int sgeLkey(int index);

    /** Immediate data in host byte order; providers convert to the wire's network order. */
    void immediateData(int imm);

    int immediateData();

    void rdma(long remoteAddress, int rkey);

    /**
     * An atomic's remote 8 bytes and operands: {@code compareAdd} is the value to add (FETCH_AND_ADD)
     * or to compare with (CMP_AND_SWP), {@code swap} the value CMP_AND_SWP writes on a match.
     */
    void atomic(long remoteAddress, int rkey, long compareAdd, long swap);

    /** The remote address of an RDMA or atomic request. */
    long remoteAddress();

    /** The rkey of an RDMA or atomic request. */
    int rkey();

    long compareAdd();

    long swap();

    /** UD destination: address handle, remote QP number and Q_Key. */
    void datagram(AhHandle ah, int remoteQpn, int remoteQkey);

    @Nullable AhHandle addressHandle();

    int remoteQpn();

    int remoteQkey();

    /** XRC destination: the remote XRC SRQ number. */
    void xrcRemoteSrqNum(int srqNum);

    int xrcRemoteSrqNum();

    @Override
    void close();
}
