//=============================================================================
// Jet: a hand-made class in the way of UT v436 and UE2-era mods, whose #exec lines import a
// skeletal mesh from an ActorX .psk. Rigscope's tests drop it with the C4 sample's sources
// (sources/C4.psk, C4.psa), the flag.pcx fixture and the JetpackTex.utx sample, each in place.
//=============================================================================
class Jet extends Actor;

#exec OBJ LOAD FILE=..\Textures\JetpackTex.utx PACKAGE=Jet.Skins
#exec OBJ LOAD FILE="..\Textures\JetDecals.utx"

#exec TEXTURE IMPORT NAME=JetSkin FILE=Textures\flag.pcx GROUP=Skins FLAGS=2

#exec ANIM IMPORT ANIM=JetAnims ANIMFILE=Models\C4.psa COMPRESS=1 IMPORTSEQS=1
#exec MESH MODELIMPORT MESH=Jet MODELFILE=Models\C4.psk LODSTYLE=12
#exec MESH ORIGIN MESH=Jet X=4 Y=-8 Z=10 YAW=64 PITCH=32 ROLL=-16
#exec MESHMAP SCALE MESHMAP=Jet X=2 Y=2 Z=0.5
#exec MESH DEFAULTANIM MESH=Jet ANIM=JetAnims
#exec ANIM DIGEST ANIM=JetAnims VERBOSE

// A loose texture, a package's texture by its path, by its bare name, by the name it was loaded
// into (Jet.Skins), and one of a package that is not dropped.
#exec MESHMAP SETTEXTURE MESHMAP=Jet NUM=0 TEXTURE=JetSkin
#exec MESHMAP SETTEXTURE MESHMAP=Jet NUM=1 TEXTURE=JetpackTex.JetMetal
#exec MESHMAP SETTEXTURE MESHMAP=Jet NUM=2 TEXTURE=JetTanks
#exec MESHMAP SETTEXTURE MESHMAP=Jet NUM=3 TEXTURE=Jet.Skins.JetMetalRed
#exec MESHMAP SETTEXTURE MESHMAP=Jet NUM=4 TEXTURE=JetDecals.Labels.Stripe

defaultproperties
{
    DrawType=DT_Mesh
    Mesh=SkeletalMesh'Jet'
}
