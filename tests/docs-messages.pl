#!/usr/bin/perl
# docs messages: each message the troubleshooting page quotes, its "..." the
# values, is made of the code's text. The code's text is cut into fragments
# where the code puts a value in: a C conversion (%s, %u, %.1800s, PRIx64)
# or a line end, a shell expansion ($x, ${x}, $(...)) or quote. A piece of
# the quote between two "..." is then one fragment's text, or the end of
# one, whole fragments, and the start of another: the pieces a message is
# made of in the code, in the order the page gives them.
use strict;
use warnings;
my ($page, @files) = @ARGV;
my @frags;
for my $f (@files) {
	open(my $fh, '<', $f) or next;
	local $/;
	my $t = <$fh>;
	close $fh;
	if ($f =~ /\.c$/) {
		$t =~ s{/\*.*?\*/}{ }gs;
		$t =~ s{^\s*//.*$}{}gm;
		# adjacent literals are one string; a PRI macro between is a value
		$t =~ s/"\s*"//g;
		$t =~ s/"\s*PRI[a-zA-Z0-9]+\s*"/\x02/g;
		while ($t =~ /"((?:[^"\\\n]|\\.)*)"/g) {
			my $s = $1;
			$s =~ s/\\n/\x02/g;
			$s =~ s/\\t/\t/g;
			$s =~ s/\\(.)/$1/g;
			$s =~ s/%%/\x03/g;
			$s =~ s/%[-+ #0]*(?:\d+|\*)?(?:\.(?:\d+|\*))?(?:hh|h|ll|l|z|j|t|L)?[diouxXeEfgcsp]/\x02/g;
			$s =~ s/\x03/%/g;
			push @frags, split(/\x02/, $s, -1);
		}
	} else {
		for my $l (split /\n/, $t) {
			next if $l =~ /^\s*#/;
			$l =~ s/\$\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*\)/\x02/g;
			$l =~ s/\$\{[^}]*\}|\$[A-Za-z_0-9?#@*]+/\x02/g;
			push @frags, split(/[\x02"]/, $l, -1);
		}
	}
}
my $S = "\x01" . join("\x01", @frags) . "\x01";

# can P (a piece of a quote) be made of fragments, first a fragment's end
# (or the whole of P inside one), then whole ones, then a fragment's start?
my %memo;
sub rest_ok {   # the rest of P after a fragment ended
	my ($r) = @_;
	return 1 if $r eq '';
	return $memo{$r} if exists $memo{$r};
	my $ok = index($S, "\x01$r") >= 0 ? 1 : 0;   # the start of one
	for (my $l = length($r) - 1; !$ok && $l >= 1; $l--) {
		my $w = substr($r, 0, $l);
		$ok = 1 if index($S, "\x01$w\x01") >= 0 && rest_ok(substr($r, $l));
	}
	return $memo{$r} = $ok;
}
sub piece_ok {
	my ($p) = @_;
	return 1 if index($S, $p) >= 0;
	for (my $l = length($p) - 1; $l >= 1; $l--) {
		my $w = substr($p, 0, $l);
		return 1 if index($S, "$w\x01") >= 0 && rest_ok(substr($p, $l));
	}
	return 0;
}

open(my $ph, '<', $page) or die "$page: $!\n";
my ($prev, $term, $bad) = ('', undef, 0);
my @terms;
while (my $l = <$ph>) {
	chomp $l;
	if (defined $term) {
		# a term whose text says it is OpenNebula's (or libvirt's) own
		# line is not one-ib's to print
		push @terms, $term unless $l =~ /^(OpenNebula|libvirt)'s /;
		undef $term;
	}
	$term = $l if $prev eq '.TP';
	$prev = $l;
}
for my $m (@terms) {
	$m =~ s/\\-/-/g;
	$m =~ s/\\f[BIRP]//g;
	$m =~ s/\\\(aq/'/g;
	$m =~ s/\\e/\\/g;
	$m =~ s/^\\&//;
	for my $p (split /\.\.\./, $m) {
		next if $p =~ /^\s*$/;
		my $q = $p;
		$q =~ s/^\s+|\s+$//g;
		next if length($q) < 3;
		next if piece_ok($p) || piece_ok($q);
		print "docs: one-ib-troubleshooting(7) quotes '$m': '$q' is no message of the code (or the code words it otherwise)\n";
		$bad = 1;
	}
}
exit $bad;
