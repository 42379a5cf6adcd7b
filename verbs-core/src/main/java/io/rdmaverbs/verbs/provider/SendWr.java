package io.rdmaverbs.verbs.provider;

import io.rdmaverbs.verbs.attr.SendOpcode;

import org.jspecify.annotations.Nullable;

/** A reusable send work request in the provider's own format ({@code struct ibv_send_wr} for the native one). */
public interface SendWr extends WorkRequest {

    void opcode(SendOpcode opcode);

    SendOpcode opcode();

    /** {@link io.rdmaverbs.verbs.attr.SendFlag} bits. */
    void flags(int sendFlags);

    int flags();

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
}
