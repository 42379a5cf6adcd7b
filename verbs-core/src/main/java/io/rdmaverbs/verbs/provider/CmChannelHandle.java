package io.rdmaverbs.verbs.provider;

/** A provider's handle on a CM event channel ({@code struct rdma_event_channel}). */
public interface CmChannelHandle extends Handle {

    /** The channel's file descriptor ({@code channel->fd}); the simulated provider invents one. */
    int fd();
}
