package io.rdmaverbs.verbs.provider;

/** A provider's handle on a completion channel ({@code struct ibv_comp_channel}). */
public interface CompChannelHandle extends Handle {

    /** The channel's file descriptor ({@code channel->fd}); the simulated provider invents one. */
    int fd();
}
