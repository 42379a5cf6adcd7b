package io.rdmaverbs.verbs.provider.ffm;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/** gcc for the tests' C sources in {@code src/test/c}, against the installed {@code <infiniband/verbs.h>}. */
final class CCompiler {

    static final Path SOURCES = Path.of("src/test/c");
    private static final Path OUTPUT = Path.of("target/native-test");

    private CCompiler() {
    }

    /** Why C cannot be compiled here (no gcc, or no verbs.h), or empty when it can. */
    static Optional<String> unavailable() {
        try {
            Result version = run(List.of("gcc", "--version"), null);
            if (version.exitCode() != 0) {
                return Optional.of("gcc --version failed: " + version.output());
            }
            Result header = run(List.of("gcc", "-E", "-x", "c", "-o", "/dev/null", "-"),
                    "#include <infiniband/verbs.h>\n");
            if (header.exitCode() != 0) {
                return Optional.of("<infiniband/verbs.h> is not installed (apt install libibverbs-dev): "
                        + header.output());
            }
            return Optional.empty();
        } catch (IOException e) {
            return Optional.of("gcc is not installed (apt install gcc): " + e.getMessage());
        }
    }

    /** Why C against {@code <header>} cannot be compiled here (no gcc, or the header's package missing), or empty. */
    static Optional<String> unavailable(String header, String debianPackage) {
        Optional<String> compiler = unavailable();
        if (compiler.isPresent()) {
            return compiler;
        }
        try {
            Result result = run(List.of("gcc", "-E", "-x", "c", "-o", "/dev/null", "-"), "#include <" + header + ">\n");
            return result.exitCode() == 0 ? Optional.empty()
                    : Optional.of("<" + header + "> is not installed (apt install " + debianPackage + "): "
                            + result.output());
        } catch (IOException e) {
            return Optional.of("gcc is not installed: " + e.getMessage());
        }
    }

    /** Compiles {@code src/test/c/<source>} into an executable. */
    static Path program(String source) throws IOException {
        return compile(source, source.replace(".c", ""), List.of());
    }

    /** Compiles {@code src/test/c/<source>} into an executable, with generated headers from {@code includes}. */
    static Path program(String source, Path includes) throws IOException {
        return compile(source, source.replace(".c", ""), List.of("-I" + includes.toAbsolutePath()));
    }

    /** Compiles {@code src/test/c/<source>} into a shared library. */
    static Path sharedLibrary(String source) throws IOException {
        return compile(source, "lib" + source.replace(".c", ".so"), List.of("-shared", "-fPIC"));
    }

    /** Runs a program with {@code args} and returns its standard output; fails on a non-zero exit. */
    static String output(Path program, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(program.toString()));
        command.addAll(List.of(args));
        Result result = run(command, null);
        if (result.exitCode() != 0) {
            throw new IOException(program + " exited with " + result.exitCode() + ": " + result.output());
        }
        return result.output();
    }

    private static Path compile(String source, String target, List<String> flags) throws IOException {
        Files.createDirectories(OUTPUT);
        Path out = OUTPUT.resolve(target).toAbsolutePath();
        List<String> command = new ArrayList<>(List.of("gcc", "-Wall", "-Werror", "-O1"));
        command.addAll(flags);
        command.addAll(List.of("-o", out.toString(), SOURCES.resolve(source).toString()));
        Result result = run(command, null);
        if (result.exitCode() != 0) {
            throw new IOException(String.join(" ", command) + " failed:\n" + result.output());
        }
        return out;
    }

    private record Result(int exitCode, String output) {
    }

    private static Result run(List<String> command, String stdin) throws IOException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        try (var in = process.getOutputStream()) {
            if (stdin != null) {
                in.write(stdin.getBytes(StandardCharsets.UTF_8));
            }
        }
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        try {
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IOException(command + " did not finish within 60 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
        return new Result(process.exitValue(), output);
    }
}
