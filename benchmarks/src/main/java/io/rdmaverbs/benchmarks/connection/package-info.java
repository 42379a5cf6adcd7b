/**
 * Connection benchmarks across two soft-RoCE guests ({@code benchmarks/two-hosts-cm.sh}): {@link CmTime},
 * rdmacm-utils' {@code cmtime} through the project's API, and {@link PingPong}, a send/receive round trip
 * over one RC connection, the counterpart of {@code src/main/c/cm_pingpong.c}. Both also run in one JVM
 * on two simulated hosts, a smoke run of the same code.
 */
package io.rdmaverbs.benchmarks.connection;
