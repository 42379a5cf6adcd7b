package io.rdmaverbs.spring.boot.autoconfigure.docs;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.rdmaverbs.spring.boot.autoconfigure.Contexts;
import io.rdmaverbs.spring.boot.autoconfigure.connections.RdmaConnectionsAutoConfiguration;
import io.rdmaverbs.spring.boot.connections.RdmaMessageHandler;
import io.rdmaverbs.verbs.provider.ffm.NativeVerbsProvider;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.Environment;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.io.FileSystemResource;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.core.io.support.SpringFactoriesLoader.ArgumentResolver;
import org.jspecify.annotations.Nullable;

/**
 * The sample's configuration (application.yml and the active profile's file, the simulated one
 * unless the arguments say otherwise) started with command-line arguments on top, and what the first
 * failure analyzer that knows its startup failure makes of it, as Spring Boot does, with the
 * connections' auto-configuration among the others. Two of the sample's own beans are stood in for:
 * {@code LoopbackExchange}, which one example collides with, by a plain object, and the listener
 * {@code echo}'s handler, {@code EchoHandler}, by a handler that echoes.
 *
 * <p>The native profile loads libibverbs, and a JVM loads one libibverbs for good (the other tests
 * need it unloaded): those startups run in a JVM of their own ({@link #main}).
 */
final class SampleStartup {

    private static final Path SAMPLE_CONFIG = Path.of("..", "sample-app", "src", "main", "resources");
    private static final String ACTION = "\u0000action";
    private static final String SKIP = "\u0000skip ";

    /** The analysis, or null with {@code skipped} set when the page's capture does not apply to this machine. */
    record Outcome(@Nullable FailureAnalysis analysis, @Nullable String skipped) {
    }

    private SampleStartup() {
    }

    static Outcome analyze(List<String> arguments) throws IOException, InterruptedException {
        return isNative(arguments) ? inOwnJvm(arguments) : new Outcome(inThisJvm(arguments), null);
    }

    /**
     * Writes to the file {@code args[0]} the analysis of the startup with the other arguments
     * (description, a separator, action), or why the page's capture does not apply here.
     */
    public static void main(String[] args) throws IOException {
        List<String> arguments = List.of(args).subList(1, args.length);
        String skipped = nativeCaptureDoesNotApply(arguments);
        String text;
        if (skipped != null) {
            text = SKIP + skipped;
        }
        else {
            FailureAnalysis analysis = inThisJvm(arguments);
            text = analysis.getDescription() + "\n" + ACTION + "\n" + analysis.getAction();
        }
        Files.writeString(Path.of(args[0]), text, StandardCharsets.UTF_8);
    }

    private static boolean isNative(List<String> arguments) {
        return arguments.contains("--spring.profiles.active=native");
    }

    private static Outcome inOwnJvm(List<String> arguments) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                SampleStartup.class.getName()));
        Path result = Files.createTempFile("sample-startup", ".txt");
        Path log = Files.createTempFile("sample-startup", ".log");
        command.add(result.toString());
        command.addAll(arguments);
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            if (!process.waitFor(120, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException("the sample's startup with " + arguments + " did not end in 120 s");
            }
            if (process.exitValue() != 0) {
                throw new IllegalStateException("the sample's startup with " + arguments + " exited with "
                        + process.exitValue() + ":\n" + Files.readString(log, StandardCharsets.UTF_8));
            }
            String out = Files.readString(result, StandardCharsets.UTF_8);
            int skip = out.indexOf(SKIP);
            if (skip >= 0) {
                return new Outcome(null, out.substring(skip + SKIP.length()).strip());
            }
            int action = out.indexOf(ACTION);
            return new Outcome(new FailureAnalysis(out.substring(0, action).strip(),
                    out.substring(action + ACTION.length()).strip(), null), null);
        }
        finally {
            Files.deleteIfExists(result);
            Files.deleteIfExists(log);
        }
    }

    /** The page's native texts were captured where libibverbs loads and finds no device, or with a library path. */
    private static @Nullable String nativeCaptureDoesNotApply(List<String> arguments) {
        String path = arguments.stream().filter(a -> a.startsWith("--rdma.verbs.native.library-path="))
                .map(a -> a.substring(a.indexOf('=') + 1)).findFirst().orElse(null);
        if (path != null) {
            return path.startsWith("/opt/nowhere") || Files.exists(Path.of(path)) ? null : path + " does not exist here";
        }
        try {
            return NativeVerbsProvider.load().deviceVerbs().devices().isEmpty() ? null : "this machine has an RDMA device";
        }
        catch (RuntimeException unavailable) {
            return "libibverbs cannot be used here: " + unavailable.getMessage();
        }
    }

    private static FailureAnalysis inThisJvm(List<String> arguments) throws IOException {
        List<String> properties = arguments.stream().map(a -> a.replaceFirst("^--", "")).toList();
        String profile = isNative(arguments) ? "native" : "simulated";
        List<PropertySource<?>> sample = new ArrayList<>();
        YamlPropertySourceLoader yaml = new YamlPropertySourceLoader();
        for (String file : List.of("application-" + profile + ".yml", "application.yml")) {
            sample.addAll(yaml.load(file, new FileSystemResource(SAMPLE_CONFIG.resolve(file))));
        }
        ApplicationContextRunner runner = Contexts.all()
                .withConfiguration(AutoConfigurations.of(RdmaConnectionsAutoConfiguration.class))
                .withInitializer(context -> sample.forEach(context.getEnvironment().getPropertySources()::addLast))
                .withBean("loopbackExchange", Object.class, Object::new)
                .withBean("echoHandler", RdmaMessageHandler.class, () -> message -> { })
                .withPropertyValues(properties.toArray(String[]::new));
        FailureAnalysis[] analysis = new FailureAnalysis[1];
        runner.run(context -> {
            if (context.getStartupFailure() == null) {
                throw new IllegalStateException("the sample started with " + arguments);
            }
            ArgumentResolver resolver = ArgumentResolver.of(BeanFactory.class, new DefaultListableBeanFactory())
                    .and(Environment.class, new StandardEnvironment());
            for (FailureAnalyzer analyzer : SpringFactoriesLoader.forDefaultResourceLocation()
                    .load(FailureAnalyzer.class, resolver)) {
                analysis[0] = analyzer.analyze(context.getStartupFailure());
                if (analysis[0] != null) {
                    break;
                }
            }
        });
        if (analysis[0] == null) {
            throw new IllegalStateException("no failure analyzer explains the startup with " + arguments);
        }
        return analysis[0];
    }
}
