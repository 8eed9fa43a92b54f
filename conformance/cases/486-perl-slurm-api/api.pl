#!/usr/bin/perl
# Debian's Perl API over libslurm.so.38 (libspur_compat on the Spur target): each call's result, fields that both
# targets report alike, and the errno/strerror of a failing call.
use strict;
use warnings;
use Slurm qw(:constant);
use Slurm::Hostlist;
use Slurm::Bitstr;

my $slurm = Slurm::new() or die "Slurm::new failed\n";
printf "api_version %s\n", join('.', $slurm->api_version());

my $conf = $slurm->load_ctl_conf() or die 'load_ctl_conf: ' . $slurm->strerror() . "\n";
printf "cluster %s\n", $conf->{cluster_name};

# The job asks for the first node by name, so req_node_inx has something to show.
my $first = $slurm->load_node() or die 'load_node: ' . $slurm->strerror() . "\n";
my $resp = $slurm->submit_batch_job({
    name => 'perljob', req_nodes => $first->{node_array}[0]{name}, script => "#!/bin/sh\nsleep 300\n", min_nodes => 1, num_tasks => 1,
    user_id => $<, group_id => $( + 0, work_dir => $ENV{PWD}, std_out => '/dev/null',
    environment => { PERLJOB => 1 },
});
die 'submit_batch_job: ' . $slurm->strerror() . "\n" unless $resp;
my $id = $resp->{job_id};
printf "submitted %d rc %d\n", $id, $resp->{error_code};
print "JOBID=$id\n";
# Wait until it runs, through the API itself.
my $job;
for (1 .. 200) {
    my $one = $slurm->load_job($id) or die 'load_job: ' . $slurm->strerror() . "\n";
    $job = $one->{job_array}[0];
    last if $job->{job_state} == JOB_RUNNING;
    select(undef, undef, undef, 0.1);
}
printf "job %d name %s state %s compact %s num %d user_id %d nodes %s num_cpus %d partition %s\n",
    $job->{job_id}, $job->{name}, $slurm->job_state_string($job->{job_state}),
    $slurm->job_state_string_compact($job->{job_state}), $slurm->job_state_num('RUNNING'),
    $job->{user_id}, $job->{nodes}, $job->{num_cpus}, $job->{partition};
printf "reason %s\n", $slurm->job_reason_string($job->{state_reason});
printf "node_inx [%s] exc_node_inx [%s] req_node_inx [%s]\n", join(',', @{$job->{node_inx}}),
    join(',', @{$job->{exc_node_inx}}), join(',', @{$job->{req_node_inx}});

my $all = $slurm->load_jobs() or die 'load_jobs: ' . $slurm->strerror() . "\n";
my @mine = grep { $_->{job_id} == $id } @{$all->{job_array}};
printf "load_jobs has it %d\n", scalar @mine;

my $nodes = $slurm->load_node() or die 'load_node: ' . $slurm->strerror() . "\n";
for my $n (@{$nodes->{node_array}}) {
    printf "node %s cpus %d sockets %d cores %d threads %d real_memory %d state %s gres %s\n",
        $n->{name}, $n->{cpus}, $n->{sockets}, $n->{cores}, $n->{threads}, $n->{real_memory},
        $slurm->node_state_string($n->{node_state}), $n->{gres} // '';
}
my $parts = $slurm->load_partitions() or die 'load_partitions: ' . $slurm->strerror() . "\n";
for my $p (@{$parts->{partition_array}}) {
    printf "partition %s nodes %s total_cpus %d total_nodes %d max_time %d\n",
        $p->{name}, $p->{nodes}, $p->{total_cpus}, $p->{total_nodes}, $p->{max_time};
}

my $rc = $slurm->kill_job($id, 9);
printf "kill_job rc %d\n", $rc;
for (1 .. 200) {
    my $one = $slurm->load_job($id) or last;
    last unless $one->{job_array}[0]{job_state} == JOB_RUNNING;
    select(undef, undef, undef, 0.1);
}

# Errors: an unknown job and a signal to it.
my $none = $slurm->load_job(999999);
printf "load_job unknown %s errno %d %s\n", defined $none ? 'defined' : 'undef', $slurm->get_errno(),
    $slurm->strerror();
$rc = $slurm->kill_job(999999, 9);
printf "kill_job unknown rc %d errno %d %s\n", $rc, $slurm->get_errno(), $slurm->strerror();

# Hostlists and bitstrings are libslurm's own helpers.
my $hl = Slurm::Hostlist::create('n[1-3],n5,m2');
printf "hostlist count %d ranged %s shift %s\n", $hl->count(), $hl->ranged_string(), $hl->shift();
my $bm = Slurm::Bitstr::alloc(16);
$bm->nset(2, 5);
$bm->set(9);
printf "bitstr size %d count %d ffs %d fls %d fmt %s test9 %d test10 %d\n", $bm->size(), $bm->set_count(),
    $bm->ffs(), $bm->fls(), $bm->fmt(), $bm->test(9) ? 1 : 0, $bm->test(10) ? 1 : 0;
printf "preempt %s node_state %s\n", $slurm->preempt_mode_string(1), $slurm->node_state_string(NODE_STATE_IDLE);
