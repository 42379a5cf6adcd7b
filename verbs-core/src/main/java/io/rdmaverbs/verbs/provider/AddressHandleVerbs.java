package io.rdmaverbs.verbs.provider;

import io.rdmaverbs.verbs.attr.AddressVector;

/**
 * Address handles for UD sends: {@code ibv_create_ah(3)}, {@code ibv_destroy_ah(3)}. Failures and
 * handle checks as described on {@link VerbsProvider}.
 */
public interface AddressHandleVerbs {

    /** {@code ibv_create_ah}. */
    AhHandle createAh(PdHandle pd, AddressVector address);

    /**
     * {@code ibv_destroy_ah}. May run while a UD {@link QueuePairVerbs#postSend} or a
     * {@link QpExOps#setUdAddr} naming the AH runs in another thread: the provider lets those calls (which
     * read the AH) finish before it is freed, and refuses later ones with {@link IllegalStateException}.
     */
    void destroyAh(AhHandle ah);
}
